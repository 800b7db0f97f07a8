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
# 3. The shipping modules import FoundationEssentials, never all of Foundation (except as the
#    `#else` of `#if canImport(FoundationEssentials)`, for platforms without it): Foundation brings
#    ICU's data, and the statically linked netclock would grow from 17 MB to 62 MB.
# 4. The CLI (Sources/NetclockCLI) works through the facade: it imports NetworkClock, and of the
#    lower modules only SNTP (to name its public NTPSample) and TimeValues (its values' operators,
#    which Swift finds only in a module imported directly); it calls no platform function
#    (`Syscalls.`, `FileSystem.`) and reads no system clock itself.
#
# Exit status: 0 when all hold, 1 when one does not (the offending lines are printed).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# The modules the NetworkClock library product links (see Package.swift), and the CLI on top.
linked=(TimeValues NetClockPlatform CKernelClock NetClockTLS SNTP NTS NTSClient Roughtime HTTPTime ClockCore NetworkClock)
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
foundation='^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+([a-z]+[[:space:]]+)?(Foundation|FoundationInternationalization|FoundationNetworking|FoundationXML)([^A-Za-z0-9_]|$)'
if hits=$(find Sources -name '*.swift' -exec awk -v pattern="$foundation" '
    $0 ~ pattern && previous !~ /^#else/ { print FILENAME ":" FNR ": " $0 }
    NF { previous = $0 }' {} +) && [[ -n $hits ]]; then
    echo "!! Foundation imported by a shipping module (FoundationEssentials is what they may import):" >&2
    echo "$hits" >&2
    status=1
fi
cli_imports='^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+([a-z]+[[:space:]]+)?(NetClockPlatform|CKernelClock|NetClockTLS|NTS|NTSClient|Roughtime|HTTPTime|ClockCore)([^A-Za-z0-9_]|$)'
if hits=$(grep -rnE --include='*.swift' "$cli_imports" Sources/NetclockCLI Sources/netclock); then
    echo "!! the CLI imports a lower module (it works through NetworkClock):" >&2
    echo "$hits" >&2
    status=1
fi
if hits=$(grep -rnE --include='*.swift' '\b(Syscalls|FileSystem|SystemWallClock|BootTimeClock)\b' \
    Sources/NetclockCLI Sources/netclock); then
    echo "!! the CLI calls the platform itself (it works through NetworkClock):" >&2
    echo "$hits" >&2
    status=1
fi
if [[ $status -eq 0 ]]; then
    echo "check-layers: no listen/accept or server type in ${#shipping[@]} shipping modules;" \
        "COpenSSL imported by NetClockTLS only; Foundation by none (FoundationEssentials);" \
        "the CLI through the facade"
fi
exit $status
