#!/usr/bin/env bash
# Builds a product in release mode as netclock ships: the Swift runtime and FoundationEssentials
# linked statically (`--static-swift-stdlib`), no RUNPATH (`--disable-local-rpath`), so the binary
# needs only what a Debian system has (glibc, libstdc++, libgcc, OpenSSL 3) and runs on a machine
# without a Swift toolchain. Tools/install.sh, Tools/package-deb.sh and CI's release build (.ci/run)
# all build through here, so there is one release build, not one per flag set.
#
#   Tools/release-build.sh [PRODUCT]      (default: netclock)
#
# Prints the build's last line on standard error and the built binary's path on standard output;
# on a failure, the whole build log on standard error and exit status 1. NETCLOCK_SCRATCH_PATH:
# SwiftPM's build directory (default .build), e.g. CI's own release build.
set -euo pipefail
cd "$(dirname "$0")/.."

product=${1:-netclock}
flags=(-c release --static-swift-stdlib --disable-local-rpath)
[[ -n ${NETCLOCK_SCRATCH_PATH:-} ]] && flags+=(--scratch-path "$NETCLOCK_SCRATCH_PATH")
if ! log=$(swift build "${flags[@]}" --product "$product" 2>&1); then
    echo "$log" >&2
    echo "release-build.sh: the release build of $product failed" >&2
    exit 1
fi
echo "${log##*$'\n'}" >&2
echo "$(swift build "${flags[@]}" --show-bin-path)/$product"
