#!/usr/bin/env bash
# The whole test suite: builds it, then runs it in the shards of Tests/shards.txt, each a test
# process of its own, side by side; each shard runs its tests one at a time, and the shards marked
# `!` run alone, one after another, after the others. Prints each shard's time and result, then every failure, then
# one summary line; the exit status is 0 only when every shard passed.
#
#   Tools/test.sh [--skip-build]
#
# Environment: what the tests read (NETCLOCK_REQUIRE_PEERS, NETCLOCK_ROUGHLY_VENV, ...) passes
# through. NETCLOCK_TEST_LOGS=DIR keeps each shard's whole output in DIR/SHARD.log (otherwise in a
# temporary directory removed at the end, after a failing shard's log is printed).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} != --skip-build ]]; then
    build_log=$(mktemp)
    if ! swift build --build-tests >"$build_log" 2>&1; then
        tail -n 60 "$build_log"
        rm -f "$build_log"
        exit 1
    fi
    tail -n 1 "$build_log"
    rm -f "$build_log"
fi
bin="$(swift build --show-bin-path)/NetworkClockPackageTests.xctest"
[[ -x $bin ]] || { echo "test.sh: no test bundle at $bin (build it: swift build --build-tests)" >&2; exit 1; }

logs=${NETCLOCK_TEST_LOGS:-}
if [[ -z $logs ]]; then
    logs=$(mktemp -d)
    trap 'rm -rf "$logs"' EXIT
fi
mkdir -p "$logs"

# name → pattern, in file order; the earlier shards' patterns are skipped by the later ones, and
# every alone shard's by the side-by-side ones.
names=()
patterns=()
alone_names=()
alone_patterns=()
while read -r name pattern; do
    [[ -z $name || $name == \#* ]] && continue
    if [[ $name == *! ]]; then
        alone_names+=("${name%!}")
        alone_patterns+=("$pattern")
    else
        names+=("$name")
        patterns+=("$pattern")
    fi
done <Tests/shards.txt

# Runs shard $1 with the remaining arguments as its filters; records its status and time.
run_shard() {
    local name=$1 start=$SECONDS status=0
    shift
    "$bin" --testing-library swift-testing --no-parallel "$@" >"$logs/$name.log" 2>&1 || status=$?
    echo "$status $((SECONDS - start))" >"$logs/$name.status"
}

start=$SECONDS
earlier=$(IFS='|'; echo "${alone_patterns[*]}")
pids=()
for i in "${!names[@]}"; do
    if [[ -n $earlier ]]; then
        run_shard "${names[$i]}" --filter "${patterns[$i]}" --skip "$earlier" &
        earlier="$earlier|${patterns[$i]}"
    else
        run_shard "${names[$i]}" --filter "${patterns[$i]}" &
        earlier=${patterns[$i]}
    fi
    pids+=($!)
done
run_shard rest --skip "$earlier" &
pids+=($!)
wait "${pids[@]}"
side_by_side=$((SECONDS - start))
order=("${names[@]}" rest)
for i in "${!alone_names[@]}"; do
    run_shard "${alone_names[$i]}" --filter "${alone_patterns[$i]}"
    order+=("${alone_names[$i]}")
done

failed=0 tests=0 skipped=0
for name in "${order[@]}"; do
    read -r status seconds <"$logs/$name.status"
    summary=$(sed 's/\x1b\[[0-9;]*m//g' "$logs/$name.log" | grep -E 'Test run with [0-9]+ tests?' | tail -n 1)
    count=$(echo "$summary" | grep -Eo 'with [0-9]+ tests?' | grep -Eo '[0-9]+' | head -n 1)
    tests=$((tests + ${count:-0}))
    skipped=$((skipped + $(sed 's/\x1b\[[0-9;]*m//g' "$logs/$name.log" | grep -c '^➜ Test .* skipped' || true)))
    printf '== shard %-12s %3ss  %s\n' "$name" "$seconds" "${summary:-no summary (status $status)}"
    if [[ $status -ne 0 ]]; then
        failed=$((failed + 1))
    elif [[ ${count:-0} -eq 0 ]]; then
        # A line that names no test has rotted (a suite renamed or moved): fix Tests/shards.txt.
        echo "== shard $name ran no test: its pattern in Tests/shards.txt matches nothing" >&2
        failed=$((failed + 1))
    fi
done
for name in "${order[@]}"; do
    read -r status _ <"$logs/$name.status"
    if [[ $status -ne 0 ]]; then
        echo "== shard $name failed (status $status):"
        sed 's/\x1b\[[0-9;]*m//g' "$logs/$name.log" | grep -E '^(✘|↳)' || tail -n 40 "$logs/$name.log"
    fi
done
for name in "${order[@]}"; do
    sed 's/\x1b\[[0-9;]*m//g' "$logs/$name.log" | grep '^➜ Test .* skipped' || true
done
echo "Test run with $tests tests ($skipped skipped) in $((${#order[@]})) shards: side by side ${side_by_side}s, all $((SECONDS - start))s; $failed shards failed"
[[ $failed -eq 0 ]]
