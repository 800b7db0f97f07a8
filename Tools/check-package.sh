#!/usr/bin/env bash
# Builds netclock's Debian package (Tools/package-deb.sh) and proves it ships: the stripped binary
# is at most 20 MB and ldd names no file of the Swift toolchain; lintian reports no error; the
# extracted binary runs `--version`, `man` and `query` (against the fake NTP server on loopback)
# in a mount namespace where the toolchain's directory is an empty directory, beside a
# toolchain-linked binary that cannot start there; then the package is installed for real (apt-get),
# its units pass `systemd-analyze verify` with the installed binary and are not enabled, enabling
# them works, and `apt-get purge` leaves no file of the package, no enable link and no state.
#
#   Tools/check-package.sh
#
# CI runs it as root (.ci/run), reusing the release build in NETCLOCK_SCRATCH_PATH. It needs
# dpkg-dev, lintian, systemd (systemd-analyze, systemctl), util-linux (unshare) and python3. The
# machine's /etc is not changed: the enable links are made, and the purge runs, in a private mount
# namespace whose /etc/systemd/system is a copy.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-package: $*" >&2; exit 1; }
say() { echo "check-package: $*"; }
[[ $(id -u) == 0 ]] || fail "needs root (unshare --mount, apt-get install)"
for tool in dpkg-deb dpkg-shlibdeps lintian systemd-analyze systemctl unshare apt-get python3; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install -y dpkg-dev lintian systemd util-linux)"
done
# The toolchain's directory, from where `swift` really is (…/usr/bin/swift-driver: its usr).
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
[[ -d $toolchain/lib/swift ]] || fail "no Swift runtime under $toolchain (from $(command -v swift))"
if dpkg-query -W -f='${Status}' netclock 2>/dev/null | grep -q 'ok installed'; then
    fail "a netclock package is already installed here; this check installs and purges its own"
fi
[[ ! -e /usr/bin/netclock ]] || fail "/usr/bin/netclock exists and no package owns it; the check would replace it"

work=$(mktemp -d)
server_pid=""
installed=0
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if ((installed)); then apt-get purge -y -qq netclock >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

package=$(Tools/package-deb.sh --output "$work")
say "built $(basename "$package") ($(du -k "$package" | cut -f1) KiB)"
dpkg-deb -f "$package" Depends | grep -q 'libc6' || fail "Depends does not name libc6: $(dpkg-deb -f "$package" Depends)"
say "Depends (dpkg-shlibdeps): $(dpkg-deb -f "$package" Depends)"

# The binary: small, stripped, no RUNPATH, and nothing it loads comes from the toolchain.
root=$work/root
dpkg -x "$package" "$root"
binary=$root/usr/bin/netclock
size=$(stat -c %s "$binary")
((size <= 20000000)) || fail "the binary is $size bytes, over 20 MB"
file -b "$binary" | grep -q ', stripped' || fail "the binary is not stripped: $(file -b "$binary")"
! readelf -d "$binary" | grep -Eq 'RPATH|RUNPATH' || fail "the binary has a search path: $(readelf -d "$binary" | grep -E 'RPATH|RUNPATH')"
libraries=$(ldd "$binary")
! grep -qF "$toolchain" <<<"$libraries" || fail "ldd names the toolchain: $libraries"
! grep -q 'not found' <<<"$libraries" || fail "ldd: $libraries"
say "binary: $size bytes, stripped, no RUNPATH; ldd: $(awk '{print $1}' <<<"$libraries" | paste -sd' ')"

# lintian: no error; what it warns about is printed.
# (It says once that it runs as root, which CI does.)
lint=$(lintian --fail-on error --tag-display-limit 0 "$package" 2>&1) || fail "lintian: $lint"
lint=$(grep -v '^running with root privileges' <<<"$lint" || true)
say "lintian: ${lint:-(nothing)}"

# Without the toolchain: an empty directory over it, in a private mount namespace. The fake server
# is linked against the toolchain, so it starts outside; a toolchain-linked binary inside must fail
# to start (or the namespace would prove nothing).
swift build --product fake-ntp-server >/dev/null
bin=$(swift build --show-bin-path)
mkdir "$work/empty"
fifo=$work/server.out
mkfifo "$fifo"
"$bin/fake-ntp-server" --host 127.0.0.1 --port 0 --offset 1.5 --seed 1 >"$fifo" &
server_pid=$!
read -r line <"$fifo"
address=${line#listening on }
[[ $address == 127.0.0.1:* ]] || fail "the fake NTP server said '$line'"
# shellcheck disable=SC2016 # expanded by the inner shell
hidden='mount --bind "$1" "$2" && shift 2 && exec "$@"'
without_toolchain() { unshare --mount sh -c "$hidden" sh "$work/empty" "$toolchain" "$@"; }
if without_toolchain "$bin/fake-ntp-server" --help >/dev/null 2>&1; then
    fail "a toolchain-linked binary still starts with $toolchain hidden"
fi
version=$(without_toolchain "$binary" --version) || fail "--version without the toolchain failed: $version"
[[ $version == "netclock $(dpkg-deb -f "$package" Version)" ]] || fail "--version printed '$version'"
page=$(without_toolchain "$binary" man) || fail "netclock man without the toolchain failed"
grep -q '^\.Dt NETCLOCK 1' <<<"$page" || fail "netclock man printed no man page: ${page:0:200}"
json=$(without_toolchain "$binary" query "$address" --interval 0 --samples 4 --json) \
    || fail "netclock query without the toolchain failed: $json"
# The fake server's clock is 1.5 s ahead; loopback adds microseconds.
python3 -c 'import json, sys
r = json.loads(sys.argv[1])
assert abs(r["offset"] - 1.5) < 0.05 and r["error_bound"] < 0.05, r' "$json" \
    || fail "netclock query: $json"
say "with $toolchain hidden: a toolchain-linked binary does not start; the package's runs --version, man, and query ($address: offset 1.5 s)"
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""

# Installed for real, checked, enabled and purged, in a private mount namespace whose
# /etc/systemd/system is a copy (the machine's /etc is left as it was); dpkg's database and the
# files the package installs are the machine's.
install_check() {
    local package=$1 toolchain=$2 path unit
    apt-get install -y -qq "$package" >/dev/null || fail "apt-get install $package failed"
    local files
    files=$(dpkg -L netclock)
    [[ $(command -v netclock) == /usr/bin/netclock ]] || fail "netclock is not /usr/bin/netclock on PATH"
    [[ $(netclock --version) == "netclock "* ]] || fail "the installed netclock --version failed"
    ! ldd /usr/bin/netclock | grep -qF "$toolchain" || fail "ldd /usr/bin/netclock names $toolchain"
    local units=(/usr/lib/systemd/system/netclock-set.service /usr/lib/systemd/system/netclock-set.timer)
    for unit in "${units[@]}"; do
        grep -qxF "$unit" <<<"$files" || fail "the package has no $unit"
    done
    local verify
    verify=$(systemd-analyze verify --man=no "${units[@]}" 2>&1) || fail "systemd-analyze verify: $verify"
    [[ -z $verify ]] || fail "systemd-analyze verify: $verify"
    for unit in netclock-set.service netclock-set.timer; do
        [[ $(systemctl is-enabled "$unit" 2>&1) == disabled ]] \
            || fail "$unit is $(systemctl is-enabled "$unit" 2>&1) after the install, not disabled"
    done
    say "installed: $(grep -c . <<<"$files") paths; systemd-analyze verify is silent on the installed units; both disabled"
    # What the README tells the operator, then the purge must take the links away again.
    systemctl enable netclock-set.service netclock-set.timer >/dev/null 2>&1 || fail "systemctl enable failed"
    local links=(/etc/systemd/system/multi-user.target.wants/netclock-set.service
        /etc/systemd/system/timers.target.wants/netclock-set.timer)
    for path in "${links[@]}"; do
        [[ -L $path ]] || fail "systemctl enable made no $path"
    done
    apt-get purge -y -qq netclock >/dev/null || fail "apt-get purge netclock failed"
    ! dpkg-query -W -f='${Status}\n' netclock 2>/dev/null | grep -q installed || fail "netclock is still installed"
    while IFS= read -r path; do
        [[ -d $path && ! -L $path ]] && continue
        [[ ! -e $path && ! -L $path ]] || fail "the purge left $path"
    done <<<"$files"
    for path in "${links[@]}" /var/lib/netclock /var/lib/private/netclock; do
        [[ ! -e $path && ! -L $path ]] || fail "the purge left $path"
    done
    if left=$(find /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
        -name 'netclock-set*' 2>/dev/null) && [[ -n $left ]]; then
        fail "the purge left deb-systemd-helper's state: $left"
    fi
}
cp -a /etc/systemd/system "$work/units"
installed=1
# shellcheck disable=SC2016 # expanded by the inner shell
DEBIAN_FRONTEND=noninteractive unshare --mount bash -euo pipefail -c \
    "$(declare -f fail say install_check)"'; mount --bind "$1" /etc/systemd/system && install_check "$2" "$3"' \
    bash "$work/units" "$package" "$toolchain"
installed=0
say "purged: no file of the package, no enable link, no state left"
