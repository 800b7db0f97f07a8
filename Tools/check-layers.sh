#!/usr/bin/env bash
# Checks that the shipping modules hold client code only.
#
#   Tools/check-layers.sh
#
# 1. No `listen(` or `accept(` call and no server type (listeners, UDP server sockets, wake
#    channels, joinable threads, process control, the TLS server context) in the source
#    directories of the modules the NetworkClock library product links, nor in the CLI: servers
#    live with the test tools (Tools/NetClockTestSupport, Tools/LoopbackServers).
# 2. Among the shipping modules (everything under Sources/), only NetClockTLS imports COpenSSL.
#
# Exit status: 0 when both hold, 1 when one does not (the offending lines are printed).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# The modules the NetworkClock library product links (see Package.swift), and the CLI on top.
linked=(NetClockPlatform CKernelClock TimeBase NetClockTLS SNTP NTS NTSClient Roughtime HTTPTime ClockCore NetworkClock)
shipping=("${linked[@]}" NetclockCLI netclock)
dirs=()
for module in "${shipping[@]}"; do
    [[ -d Sources/$module ]] || { echo "check-layers.sh: no Sources/$module" >&2; exit 1; }
    dirs+=("Sources/$module")
done

status=0
server_calls='(^|[^A-Za-z0-9_])(listen|accept)\('
server_types='\b(UDPServerSocket|TCPListener|AcceptedTCPConnection|WakeChannel|JoinableThread|ProcessControl|AcceptedByteStream|TLSServerConfiguration|ALPNSelection|TLS_server_method|SSL_CTX_set_alpn_select_cb|SSL_get_servername)\b'
if hits=$(grep -rnE --include='*.swift' --include='*.c' --include='*.h' "$server_calls" "${dirs[@]}"); then
    echo "!! listen(/accept( in a shipping module:" >&2
    echo "$hits" >&2
    status=1
fi
if hits=$(grep -rnE --include='*.swift' "$server_types" "${dirs[@]}"); then
    echo "!! a server type in a shipping module:" >&2
    echo "$hits" >&2
    status=1
fi
if hits=$(grep -rnE --include='*.swift' '^\s*(@[A-Za-z_]+\s+)*import\s+(\w+\s+)?COpenSSL\b' Sources \
    | grep -v '^Sources/NetClockTLS/'); then
    echo "!! COpenSSL imported outside NetClockTLS:" >&2
    echo "$hits" >&2
    status=1
fi
if [[ $status -eq 0 ]]; then
    echo "check-layers: no listen/accept or server type in ${#shipping[@]} shipping modules;" \
        "COpenSSL imported by NetClockTLS only"
fi
exit $status
