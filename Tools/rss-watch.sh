#!/usr/bin/env bash
# Memory over a long `netclock watch` run, for the leak check: starts the bundled fake SNTP server on
# loopback, runs `netclock watch` against it (4 samples per round, no spacing, a round every
# --every seconds, --count rounds), and prints the watch process's VmRSS (from /proc/PID/status)
# every --sample seconds, then the first, last and largest readings. No traffic leaves the machine.
#
#   Tools/rss-watch.sh [--count N] [--every SEC] [--sample SEC]
#
# Defaults: --count 3000 --every 0.05 --sample 10 (about 2.5 minutes). The build goes to
# $SCRATCH_PATH when set (swift build --scratch-path), else to .build. Exit status 0 when the run
# completed, 1 when the watch or the server failed.
set -euo pipefail
cd "$(dirname "$0")/.."

count=3000
every=0.05
sample=10
while [[ $# -gt 0 ]]; do
    case "$1" in
        --count) count=$2; shift 2 ;;
        --every) every=$2; shift 2 ;;
        --sample) sample=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "rss-watch: unknown option $1" >&2; exit 2 ;;
    esac
done

build=(swift build -c release)
if [[ -n "${SCRATCH_PATH:-}" ]]; then build+=(--scratch-path "$SCRATCH_PATH"); fi
"${build[@]}" --product netclock >/dev/null
"${build[@]}" --product fake-ntp-server >/dev/null
bin=$("${build[@]}" --show-bin-path)

work=$(mktemp -d)
server=""
watch=""
cleanup() {
    if [[ -n "$watch" ]]; then kill "$watch" 2>/dev/null || true; fi
    if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

mkfifo "$work/server.out"
"$bin/fake-ntp-server" --host 127.0.0.1 --port 0 --offset 0.25 >"$work/server.out" &
server=$!
read -r line <"$work/server.out"          # "listening on 127.0.0.1:PORT"
address=${line#listening on }
cat "$work/server.out" >/dev/null &        # keep draining, so the server never blocks on stdout

"$bin/netclock" watch "$address" --interval 0 --samples 4 --timeout 1 --every "$every" --count "$count" \
    >"$work/watch.out" 2>"$work/watch.err" &
watch=$!

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true; }
rounds() { wc -l <"$work/watch.out" | tr -d ' '; }

echo "netclock watch $address --interval 0 --samples 4 --every $every --count $count (pid $watch)"
# The first reading is taken once the first round is printed: start-up is not the baseline.
while kill -0 "$watch" 2>/dev/null && [[ $(rounds) -eq 0 ]]; do sleep 0.05; done
printf '%8s  %8s  %10s\n' "seconds" "rounds" "VmRSS kB"
start=$SECONDS
first=""
last=""
largest=0
while kill -0 "$watch" 2>/dev/null; do
    value=$(rss "$watch")
    if [[ -n "$value" ]]; then
        printf '%8d  %8d  %10d\n' $((SECONDS - start)) "$(rounds)" "$value"
        first=${first:-$value}
        last=$value
        ((value > largest)) && largest=$value
    fi
    # Sleep in short steps so the last reading is taken just before the watch exits.
    for ((step = 0; step < sample * 10; step++)); do
        kill -0 "$watch" 2>/dev/null || break
        sleep 0.1
    done
done
status=0
wait "$watch" || status=$?
failures=$(grep -c "no time" "$work/watch.out" || true)
echo "rounds: $(rounds) of $count, $failures without time; watch exit status $status; $((SECONDS - start)) s"
echo "VmRSS kB: first $first, last $last, largest $largest"
if [[ $status -ne 0 || $(rounds) -ne $count ]]; then
    cat "$work/watch.err" >&2
    exit 1
fi
