#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of NetworkClock.
#
#   Tools/fuzz.sh [SECONDS | --runs] [TARGET...]
#
#   SECONDS  how long to fuzz each target (default 30)
#   --runs   a fixed number of executions of each target instead of a time (about 15 s of each on
#            a 2-core CI machine): with -seed=1 and SWIFT_DETERMINISTIC_HASHING=1 every run replays
#            the same seeded mutations, as many of them, however loaded the machine (CI's gate)
#   TARGET   ntp       NTP packet decoding, re-encoding, reply and sample validation, selection
#            httpdate  HTTP-date (RFC 9110) and epoch timestamp header parsing
#            httphead  HTTP/1.x response-head parsing, end-of-head search, Date/timestamp evidence
#            ntske     NTS-KE response records (RFC 8915 §4) in arbitrary splits, re-encoding
#            ntsef     NTS extension fields for NTPv4 (RFC 8915 §5): packets, plaintext, requests
#            tls       the TLS client engine against what a server sends (in-memory transport):
#                      the handshake terminates with bounded work (rounds, bytes, receives)
#            roughtime Roughtime messages, framing, requests and reply verification (RFC 10049)
#            leapsec   the leap-seconds.list parser (IERS/NIST format: #$, #@, #h SHA-1) and SHA-1
#            (default: all of them, one after the other)
#
# Each harness (Tools/Fuzz/Fuzz*.swift) is its own module that imports the package's modules and
# uses their `package` API. Those modules are compiled from their whole directories
# (Sources/<Module>, as Package.swift lays them out) with `swiftc -sanitize=fuzzer,address -wmo
# -package-name NetworkClock`, in dependency order, into ${FUZZ_BUILD_DIR:-/tmp/netclock-fuzz}/modules,
# once for all targets; each harness is then linked with the objects it needs into
# ${FUZZ_BUILD_DIR}/<target>. The seed corpus Tools/Fuzz/corpus/<target> is copied to a fresh
# working corpus there; nothing in the repository is written.
#
# Exit status: 0 when no target crashed, 1 when libFuzzer found a crash (the artifact is kept in
# the work directory; its path and hex are printed), 2 on a usage or build error.
#
# Environment: FUZZ_BUILD_DIR (scratch directory), SWIFTC (compiler; default: swiftc on PATH, else
# /opt/swift/usr/bin/swiftc), FUZZ_ARGS (extra libFuzzer flags, e.g. "-jobs=2" or "-seed=1"),
# FUZZ_JOBS (how many targets fuzz at once, default 1; each prints its summary when it ends).
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
}

duration=30
fixed_runs=0
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    duration=$1
    shift
elif [[ $# -gt 0 && $1 == --runs ]]; then
    fixed_runs=1
    shift
elif [[ $# -gt 0 && ( $1 == -h || $1 == --help ) ]]; then
    usage
fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(ntp httpdate httphead ntske ntsef tls roughtime leapsec)
for target in "${targets[@]}"; do
    case $target in
        ntp | httpdate | httphead | ntske | ntsef | tls | roughtime | leapsec) ;;
        *) echo "fuzz.sh: unknown target '$target' (known: ntp, httpdate, httphead, ntske, ntsef, tls, roughtime, leapsec)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${FUZZ_BUILD_DIR:-/tmp/netclock-fuzz}
swiftc=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
[[ -x $swiftc ]] || { echo "fuzz.sh: no swiftc (set SWIFTC)" >&2; exit 2; }
toolchain_bin=$(dirname "$(readlink -f "$swiftc")")

# The package modules each harness imports, directly or not, in dependency order (see Package.swift).
modules_of() {
    case $1 in
        ntp) echo TimeValues NetClockPlatform SNTP ;;
        # The parsers, TrueTimeInterval's server-reading constructor (TimeValues: what a reading becomes) and
        # HTTPResponseEvidence (reading it from a response's fields) live in HTTPTime, whose client
        # also links the TLS module (https://).
        httpdate | httphead) echo TimeValues NetClockPlatform NetClockTLS HTTPTime ;;
        ntske | ntsef) echo TimeValues NetClockPlatform SNTP NTS ;;
        # The TLS engine and OpenSSL (COpenSSL's module map is passed to every compile).
        tls) echo TimeValues NetClockPlatform NetClockTLS ;;
        roughtime) echo TimeValues NetClockPlatform SNTP NetClockTLS Roughtime ;;
        leapsec) echo TimeValues ;;
    esac
}
harness_of() {
    case $1 in
        ntp) echo FuzzNTPPacket ;; httpdate) echo FuzzHTTPDate ;; httphead) echo FuzzHTTPHead ;;
        ntske) echo FuzzNTSKE ;; ntsef) echo FuzzNTSExtensions ;; tls) echo FuzzTLSRecords ;;
        roughtime) echo FuzzRoughtime ;; leapsec) echo FuzzLeapSecondTable ;;
    esac
}

# The executions of `--runs`: about 15 s of each target on a 2-core CI machine (its exec/s there,
# from CI's logs, times 15), so the slow targets (TLS handshakes, response heads) get fewer.
runs_of() {
    case $1 in
        ntp) echo 200000 ;; httpdate) echo 110000 ;; httphead) echo 9000 ;; ntske) echo 240000 ;;
        ntsef) echo 120000 ;; tls) echo 5000 ;; roughtime) echo 200000 ;; leapsec) echo 30000 ;;
    esac
}
max_len_of() {
    case $1 in
        ntp) echo 256 ;; httpdate) echo 96 ;; httphead | ntske) echo 4096 ;; ntsef | roughtime) echo 2048 ;;
        tls) echo 8192 ;; leapsec) echo 8192 ;;
    esac
}

# Tokens of the HTTP-date grammar, so mutations can splice whole names in.
write_httpdate_dict() {
    {
        for word in Sun Mon Tue Wed Thu Fri Sat Sunday Monday Tuesday Wednesday Thursday Friday \
            Saturday Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec GMT; do
            printf '"%s"\n' "$word"
        done
        printf '"%s"\n' ", " " GMT" "23:59:60" "29 Feb" "-Feb-" "  " "." "\\x09"
    } >"$1"
}

# Pieces of response heads: line ends, status lines, field names that the client looks up.
write_httphead_dict() {
    {
        printf '"%s"\n' "HTTP/1.1 " "HTTP/1.0 " "HTTP/2.0 " " 200 OK" "100 Continue" "101" "103" "204" "405" \
            "501" "599" "600" "099" "Date: " "Age: " "Age: 0" "X-Timestamp: " "Content-Length: " ": " ":" \
            "Sun, 06 Nov 1994 08:49:37 GMT" "1700000000.123" "GMT"
        printf '"%s"\n' "\x0d\x0a" "\x0d\x0a\x0d\x0a" "\x0a\x0a" "\x0a\x0d\x0a" "\x0d" "\x0a\x20" \
            "\x0d\x0a\x09" "\x00" "\x7f" "\xff" "\x20\x09"
    } >"$1"
}

# TLS record headers, alerts and handshake fields (the tls target), so
# mutations can splice whole records in.
write_tls_dict() {
    printf '"%s"\n' "\x16\x03\x03" "\x16\x03\x01" "\x17\x03\x03" "\x14\x03\x03\x00\x01\x01" \
        "\x15\x03\x03\x00\x02\x01\x00" "\x15\x03\x03\x00\x02\x02\x28" "\x15\x03\x03\x00\x02\x01\x5a" \
        "\xff\xff" "\x48\x01" "\x40\x00" "\x02\x00\x00" "\x0b\x00" "\x0e\x00\x00\x00" \
        "\x00\x2b\x00\x02\x03\x04" "\x00\x33" "\x00\x1d\x00\x20" >"$1"
}

common_flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -package-name NetworkClock)
if [[ -x $toolchain_bin/ld.lld ]]; then
    common_flags+=(-use-ld=lld)  # gold prints spurious "Cannot export local symbol __asan_*" warnings
fi

# Runs swiftc with its output in $log; prints the output (less linker noise) and fails on an error.
compile() {
    local log=$1
    shift
    if ! "$swiftc" "$@" >"$log" 2>&1; then
        grep -v "Cannot export local symbol" "$log" >&2 || true
        return 1
    fi
    grep -v "Cannot export local symbol" "$log" || true
}

# The hash of a directory's Swift files (names and contents).
hash_sources() {
    (cd "$1" && find . -name '*.swift' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) | sha256sum | cut -d' ' -f1
}

# Compiles the package module $1 from its directory into $modules_dir/$1 ($1.swiftmodule, $1.o)
# unless its sources, the flags and the modules it was built against are unchanged.
build_module() {
    local module=$1
    local out=$modules_dir/$module
    [[ -d $root/Sources/$module ]] || { echo "fuzz.sh: no Sources/$module" >&2; return 1; }
    mkdir -p "$out"
    # Snapshot the directory first: other work in the checkout may edit it while we compile.
    rm -rf "$out/src"
    cp -r "$root/Sources/$module" "$out/src"
    local stamp
    stamp=$( { "$swiftc" --version 2>&1; echo "${common_flags[*]}"; hash_sources "$out/src"
        cat "${built_stamps[@]}" /dev/null; } | sha256sum | cut -d' ' -f1)
    built_stamps+=("$out/build.stamp")
    if [[ -f $out/$module.o && -f $out/build.stamp && $(<"$out/build.stamp") == "$stamp" ]]; then
        return 0
    fi
    local files
    mapfile -t files < <(cd "$out/src" && find . -name '*.swift' | LC_ALL=C sort)
    echo "== module $module: building from Sources/$module (${#files[@]} files)"
    rm -f "$out/build.stamp"
    local start=$SECONDS
    if ! (cd "$out/src" && compile "$out/build.log" "${common_flags[@]}" -module-name "$module" -wmo \
        -I "$modules_dir/include" -emit-module -emit-module-path "$modules_dir/include/$module.swiftmodule" \
        -c "${files[@]}" -o "$out/$module.o"); then
        echo "fuzz.sh: building module $module failed (log: $out/build.log)" >&2
        return 1
    fi
    echo "$stamp" >"$out/build.stamp"
    echo "   built in $((SECONDS - start)) s"
}

# Builds the modules every requested target needs, each once, in dependency order.
build_modules() {
    local module seen=" "
    built_stamps=()
    mkdir -p "$modules_dir/include"
    for target in "${targets[@]}"; do
        for module in $(modules_of "$target"); do
            [[ $seen == *" $module "* ]] && continue
            seen+="$module "
            build_module "$module" || return 1
        done
    done
}

# Links a target's harness with its modules unless the harness and the modules are unchanged.
build() {
    local target=$1 dir=$2
    local harness objects=() module stamp
    harness=$(harness_of "$target")
    rm -rf "$dir/src"
    mkdir -p "$dir/src"
    cp "$root/Tools/Fuzz/$harness.swift" "$dir/src/"
    for module in $(modules_of "$target"); do objects+=("$modules_dir/$module/$module.o"); done
    objects+=("${c_objects[@]}")
    stamp=$( { echo "${common_flags[*]}"; cat "$dir/src/$harness.swift"
        for module in $(modules_of "$target"); do cat "$modules_dir/$module/build.stamp"; done; } \
        | sha256sum | cut -d' ' -f1)
    if [[ -x $dir/fuzz-$target && -f $dir/build.stamp && $(<"$dir/build.stamp") == "$stamp" ]]; then
        echo "== $target: harness and modules unchanged, reusing $dir/fuzz-$target"
        return 0
    fi
    echo "== $target: linking $dir/fuzz-$target (Tools/Fuzz/$harness.swift + $(modules_of "$target"))"
    rm -f "$dir/build.stamp"
    if ! compile "$dir/build.log" "${common_flags[@]}" -module-name "$harness" -I "$modules_dir/include" \
        "$dir/src/$harness.swift" "${objects[@]}" -o "$dir/fuzz-$target"; then
        echo "fuzz.sh: building $target failed (log: $dir/build.log)" >&2
        return 1
    fi
    echo "$stamp" >"$dir/build.stamp"
}

# Runs one target; returns 1 when libFuzzer reported a crash.
run() {
    local target=$1 dir=$2
    local work=$dir/work
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp "$root/Tools/Fuzz/corpus/$target/"* "$work/corpus/"
    local seeds
    seeds=$(find "$work/corpus" -type f | wc -l)
    local budget=(-max_total_time="$duration") what="for $duration s"
    if ((fixed_runs)); then
        budget=(-runs="$(runs_of "$target")")
        what="for $(runs_of "$target") runs"
    fi
    local args=("${budget[@]}" -print_final_stats=1 -max_len="$(max_len_of "$target")"
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/")
    if [[ $target == httpdate ]]; then
        write_httpdate_dict "$work/httpdate.dict"
        args+=(-dict="$work/httpdate.dict")
    elif [[ $target == httphead ]]; then
        write_httphead_dict "$work/httphead.dict"
        args+=(-dict="$work/httphead.dict")
    elif [[ $target == tls ]]; then
        write_tls_dict "$work/tls.dict"
        args+=(-dict="$work/tls.dict")
    fi
    # shellcheck disable=SC2206
    [[ -n ${FUZZ_ARGS:-} ]] && args+=($FUZZ_ARGS)
    echo "== $target: fuzzing $what from $seeds seeds (log: $work/fuzz.log)"
    local status=0
    # The Swift runtime's backtracer would fight ASan over the crash signal (and can hang); ASan
    # and libFuzzer report the crash and the stack themselves.
    SWIFT_BACKTRACE=enable=no \
        ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:handle_abort=1:handle_sigill=1:symbolize=1} \
        ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$toolchain_bin/llvm-symbolizer} \
        "$dir/fuzz-$target" "${args[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?

    local log=$work/fuzz.log
    local runs rate last cov ft corp
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")
    echo "   runs: ${runs:-?}  exec/s: ${rate:-?}  cov: ${cov:-?}  ft: ${ft:-?}  corpus: ${corp:-?}" \
        "($(find "$work/corpus" -type f | wc -l) files in $work/corpus)"

    local artifacts
    mapfile -t artifacts < <(find "$work/artifacts" -type f | LC_ALL=C sort)
    if [[ $status -eq 0 && ${#artifacts[@]} -eq 0 ]]; then
        echo "   no crash"
        return 0
    fi
    echo "!! $target: libFuzzer exited with status $status" >&2
    grep -E -m5 'Fatal error|invariant violated|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY' \
        "$log" >&2 || true
    grep -E -m20 '^ +#[0-9]+ 0x' "$log" >&2 || true
    local artifact
    for artifact in "${artifacts[@]}"; do
        echo "!! artifact: $artifact" >&2
        echo "!! hex: $(od -An -v -tx1 "$artifact" | tr -d ' \n')" >&2
        echo "!! reproduce: SWIFT_BACKTRACE=enable=no $dir/fuzz-$target $artifact" >&2
    done
    return 1
}

mkdir -p "$build_dir"
modules_dir=$build_dir/modules
# The package's C targets (CKernelClock: <sys/timex.h>, which Glibc's module map lacks, and the
# vDSO clock lookup): give each one a module map over its include directory, as SwiftPM does, and
# compile its C files once into objects every harness links.
mkdir -p "$modules_dir/cmodules"
c_objects=()
for include in "$root"/Sources/*/include; do
    [[ -d $include ]] || continue
    c_module=$(basename "$(dirname "$include")")
    printf 'module %s {\n    umbrella "%s"\n    export *\n}\n' "$c_module" "$include" \
        >"$modules_dir/cmodules/$c_module.modulemap"
    common_flags+=(-Xcc "-fmodule-map-file=$modules_dir/cmodules/$c_module.modulemap")
    for source in "$(dirname "$include")"/*.c; do
        [[ -f $source ]] || continue
        object=$modules_dir/cmodules/$c_module-$(basename "$source" .c).o
        if ! "$toolchain_bin/clang" -O1 -fPIC -I "$include" -c "$source" -o "$object"; then
            echo "fuzz.sh: compiling $source failed" >&2
            exit 2
        fi
        c_objects+=("$object")
    done
done

# System-library targets (COpenSSL) keep their module map in the source tree; it names the
# libraries to link (ssl, crypto), which the objects' autolink entries carry to the harness.
for map in "$root"/Sources/*/module.modulemap; do
    [[ -f $map ]] && common_flags+=(-Xcc "-fmodule-map-file=$map")
done

build_modules || exit 2
failed=0
for target in "${targets[@]}"; do
    dir=$build_dir/$target
    mkdir -p "$dir"
    build "$target" "$dir" || exit 2
done
jobs=${FUZZ_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: FUZZ_JOBS must be a positive number" >&2; exit 2; }
if ((jobs == 1)); then
    for target in "${targets[@]}"; do
        run "$target" "$build_dir/$target" || failed=1
    done
    exit $failed
fi
# $jobs targets at once, each into its own report, printed whole as it ends.
declare -A pids=()
report_of() { echo "$build_dir/$1/report"; }
finish_one() {
    local pid status=0 target
    wait -n -p pid "${pids[@]}" || status=$?
    for target in "${!pids[@]}"; do
        if [[ ${pids[$target]} == "$pid" ]]; then
            cat "$(report_of "$target")"
            unset "pids[$target]"
        fi
    done
    [[ $status -eq 0 ]] || failed=1
}
for target in "${targets[@]}"; do
    while ((${#pids[@]} >= jobs)); do finish_one; done
    run "$target" "$build_dir/$target" >"$(report_of "$target")" 2>&1 &
    pids[$target]=$!
done
while ((${#pids[@]} > 0)); do finish_one; done
exit $failed
