#!/usr/bin/env bash
# Builds NetworkClock, starts the bundled fake SNTP server on loopback with its clock 1.5 s ahead
# of this machine's, and queries it with `netclock query`. Extra arguments go to `netclock query`
# (e.g. --json). No traffic leaves the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product netclock >/dev/null
swift build --product fake-ntp-server >/dev/null
bin=$(swift build --show-bin-path)
fifo=$(mktemp -u)
mkfifo "$fifo"
"$bin/fake-ntp-server" --host 127.0.0.1 --port 0 --offset 1.5 --out-delay uniform:0ms:2ms --seed 1 >"$fifo" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$fifo"' EXIT
read -r line <"$fifo"            # "listening on 127.0.0.1:PORT"
address=${line#listening on }
echo "fake server: $line (clock +1.5 s, 0-2 ms random outbound delay)" >&2
"$bin/netclock" query "$address" --interval 0 --samples 8 "$@"
