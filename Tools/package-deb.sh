#!/usr/bin/env bash
# Builds netclock's Debian package, netclock_VERSION_ARCH.deb: the files Tools/install.sh stages
# (the stripped, statically linked binary, its man page and completions) in Debian's places, the
# boot units of Tools/systemd (installed, not enabled: enabling them is the operator's choice), a
# copyright file and a changelog. `Depends` is what dpkg-shlibdeps reads off the binary, so it names
# the OpenSSL package of the release it is built on (libssl3 on Debian 12, libssl3t64 later).
#
#   Tools/package-deb.sh [--output DIR]     (default: the current directory)
#
# Prints the package's path last. Needs dpkg-dev (dpkg-shlibdeps) beside dpkg-deb; reuses a release
# build in NETCLOCK_SCRATCH_PATH (Tools/release-build.sh). Files carry the last commit's time
# (SOURCE_DATE_EPOCH when set), so the same commit packs to the same bytes. Exit status: 0 built,
# 1 a build or packaging failure, 2 a usage error.
set -euo pipefail

usage() { echo "usage: Tools/package-deb.sh [--output DIR]" >&2; }
output=$PWD
while (($# > 0)); do
    case $1 in
    --output)
        (($# >= 2)) && [[ -n $2 ]] || { echo "package-deb.sh: --output needs a directory" >&2; usage; exit 2; }
        output=$2
        shift 2
        ;;
    --output=*) output=${1#--output=}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "package-deb.sh: unknown argument $1" >&2; usage; exit 2 ;;
    esac
done
[[ $output == /* ]] || output=$PWD/$output
fail() { echo "package-deb.sh: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install -y dpkg-dev binutils)"
done
cd "$(dirname "$0")/.."
umask 022

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps reads debian/control and expects the package's files under debian/PACKAGE.
root=$work/debian/netclock
Tools/install.sh --stage "$work/staged" >&2 || fail "Tools/install.sh --stage failed"
staged=$work/staged

version=$("$staged/netclock" --version)
version=${version#netclock }
[[ $version =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || fail "netclock --version gave no Debian version: '$version'"
architecture=$(dpkg --print-architecture)
maintainer=${NETCLOCK_DEB_MAINTAINER:-NetworkClock maintainers <maintainers@netclock.invalid>}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

# The staged files in Debian's places: zsh reads packages' completions from vendor-completions
# (site-functions is for the local administrator), man pages and changelogs are gzipped (-n: no name
# or time inside, so the bytes depend on the content only).
install -D -m 0755 "$staged/netclock" "$root/usr/bin/netclock"
install -d "$root/usr/share/man/man1"
gzip -9n <"$staged/netclock.1" >"$root/usr/share/man/man1/netclock.1.gz"
install -D -m 0644 "$staged/netclock.bash" "$root/usr/share/bash-completion/completions/netclock"
install -D -m 0644 "$staged/_netclock" "$root/usr/share/zsh/vendor-completions/_netclock"
install -D -m 0644 "$staged/netclock.fish" "$root/usr/share/fish/vendor_completions.d/netclock.fish"
# The units in /usr/lib/systemd/system: Debian 12's lintian accepts them there as in
# /lib/systemd/system, and from Debian 13 on (/lib merged into /usr) only there.
units=(netclock-set.service netclock-set.timer)
for unit in "${units[@]}"; do
    install -D -m 0644 "Tools/systemd/$unit" "$root/usr/lib/systemd/system/$unit"
done

doc=$root/usr/share/doc/netclock
install -d "$doc"
install -m 0644 Tools/debian/copyright "$doc/copyright"
{
    echo "netclock ($version) unstable; urgency=medium"
    echo
    echo "  * netclock $version: the statically linked binary, its man page, bash, zsh"
    echo "    and fish completions, and the boot units netclock-set.service and"
    echo "    netclock-set.timer (installed, not enabled)."
    echo
    echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$epoch")"
} | gzip -9n >"$doc/changelog.gz"

# Depends: the packages of the shared libraries the binary needs, with the versions of the symbols
# it uses (glibc, libstdc++, libgcc, OpenSSL 3).
mkdir -p "$work/debian"
printf 'Source: netclock\nMaintainer: %s\n\nPackage: netclock\nArchitecture: any\n' "$maintainer" \
    >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e debian/netclock/usr/bin/netclock 2>"$work/shlibdeps.log") || {
    cat "$work/shlibdeps.log" >&2
    fail "dpkg-shlibdeps failed"
}
depends=${depends#shlibs:Depends=}
[[ -n $depends ]] || fail "dpkg-shlibdeps found no dependencies"

install -d "$root/DEBIAN"
for script in postinst prerm postrm; do
    install -m 0755 "Tools/debian/$script" "$root/DEBIAN/$script"
done
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: netclock
Version: $version
Architecture: $architecture
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Section: net
Priority: optional
Description: trusted network time, and the system clock set from it at boot
 netclock asks NTP servers (authenticated with NTS where they offer it),
 Roughtime servers or HTTPS servers for the time, votes liars out and prints
 the time with an error bound that the true time lies within. It keeps an
 anchor that survives restarts, checks offsets as a Monitoring Plugin, writes
 Prometheus metrics, and sets the system clock from authenticated time.
 .
 netclock-set.service sets the clock at boot, before time-sync.target, on
 machines without a real-time clock; netclock-set.timer repeats it hourly.
 Both are installed but not enabled.
EOF
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -exec touch -h -d "@$epoch" {} +

mkdir -p "$output"
package=$output/netclock_${version}_${architecture}.deb
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$root" "$package" >&2
echo "$package"
