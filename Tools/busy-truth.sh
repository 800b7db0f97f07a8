#!/usr/bin/env bash
# Whether `now --json` and `query --json` keep the truth inside their bound on a machine busier
# than it has cores: starts the bundled fake SNTP server on loopback on this machine's own clock
# (offset 0, so the true offset of the system clock is exactly zero), syncs once to a private state
# file, starts more busy loops than there are cores (each stopped by its own pid), then runs
# `netclock now --json` and `netclock query --json` N times each and checks |offset| ≤ error_bound
# for every run. A thread preempted between its monotonic and wall-clock reads must widen the
# bound, never show as offset error. No traffic leaves the machine; nothing changes the clock.
#
#   Tools/busy-truth.sh [--runs N] [--hogs N] [--binary PATH]
#
# Defaults: --runs 300, --hogs twice the cores plus one, --binary .build/debug/netclock (built
# with `swift build --product netclock` when absent; the fake server is built too). Prints per
# command the runs, the violations, the largest |offset| / error_bound and the largest
# |offset|. Exit status 0 when every run held the truth, 1 when one did not or a run failed.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=300
hogs=$(( $(nproc) * 2 + 1 ))
binary=.build/debug/netclock
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --hogs) hogs=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "busy-truth: unknown option $1" >&2; exit 2 ;;
    esac
done

[[ -x $binary ]] || swift build --product netclock >/dev/null
[[ -x .build/debug/fake-ntp-server ]] || swift build --product fake-ntp-server >/dev/null

work=$(mktemp -d)
chmod 700 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

.build/debug/fake-ntp-server --port 0 >"$work/server.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.05; done
address=$(sed -n 's/^listening on //p' "$work/server.out")
[[ -n $address ]] || { echo "busy-truth: the fake server did not start" >&2; exit 1; }

"$binary" sync "$address" --interval 0 --state "$work/anchor.json" >/dev/null

for _ in $(seq 1 "$hogs"); do
    ( while :; do :; done ) &
    pids+=($!)
done

for command in now query; do
    : >"$work/$command.jsonl"
    for _ in $(seq 1 "$runs"); do
        if [[ $command == now ]]; then
            "$binary" now --state "$work/anchor.json" --json >>"$work/$command.jsonl"
        else
            "$binary" query "$address" --interval 0 --samples 2 --json >>"$work/$command.jsonl"
        fi
    done
done

python3 - "$work" "$runs" "$hogs" <<'PY'
import json, sys
work, runs, hogs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
failed = False
for command in ("now", "query"):
    rows = [json.loads(line) for line in open(f"{work}/{command}.jsonl") if line.strip()]
    bad = [r for r in rows if abs(r["offset"]) > r["error_bound"]]
    worst = max(abs(r["offset"]) / r["error_bound"] for r in rows)
    largest = max(abs(r["offset"]) for r in rows)
    bounds = sorted(r["error_bound"] for r in rows)
    print(f"{command} --json: {len(rows)} runs beside {hogs} busy loops, {len(bad)} with the truth outside"
          f" the bound; largest |offset|/bound {worst:.3f}, largest |offset| {largest * 1e6:.1f} us,"
          f" median bound {bounds[len(bounds) // 2] * 1e6:.1f} us, largest bound {bounds[-1] * 1e6:.1f} us")
    failed = failed or bool(bad) or len(rows) != runs
sys.exit(1 if failed else 0)
PY
