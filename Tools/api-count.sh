#!/usr/bin/env bash
# Counts the public API of the library products NetworkClock and SNTP (each with the public types
# it names from the package's lower targets: SNTP's time values from TimeValues, NetworkClock's
# address family from NetClockPlatform and its clock types from ClockCore).
#
#   Tools/api-count.sh [--list] [NETWORKCLOCK_LIMIT [SNTP_LIMIT [NETWORKCLOCK_SYMBOLS [SNTP_SYMBOLS]]]]
#
# Builds both modules (`swift build --target NetworkClock`, debug, in .build), extracts their
# symbol graphs with `swift-symbolgraph-extract -minimum-access-level public` into
# .build/api-count/<Module>, and prints per module the top-level public types (structs, enums,
# classes, protocols, actors and typealiases whose path has one component) and the number of
# public symbols it declares: nested types and members included (synthesized members such as `!=`
# are not counted; members of extensions to the other module's types are, and so are the members
# of the lower targets' types it names; a lower type named by a typealias counts once, as the
# typealias). --list prints one type per line with its kind.
#
# Exit status: 0 when NetworkClock has at most NETWORKCLOCK_LIMIT (default 15) top-level public
# types and NETWORKCLOCK_SYMBOLS (default 436) public symbols, and SNTP at most SNTP_LIMIT (default
# 12) and SNTP_SYMBOLS (default 195); 1 when a module is over a limit, 2 on a usage or build error.
# The symbol limits are the counts as they are: a change that adds public API must raise them, in
# review; one that removes some should lower them.
#
# Environment: SWIFT (default: swift on PATH, else /opt/swift/usr/bin/swift).
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
}

list=()
limits=()
for argument in "$@"; do
    case $argument in
        --list) list=(--list) ;;
        -h | --help) usage ;;
        *)
            [[ $argument =~ ^[0-9]+$ ]] || { echo "api-count.sh: not a limit: '$argument'" >&2; exit 2; }
            limits+=("$argument")
            ;;
    esac
done
[[ ${#limits[@]} -le 4 ]] || { echo "api-count.sh: at most four limits" >&2; exit 2; }
networkclock_limit=${limits[0]:-15}
sntp_limit=${limits[1]:-12}
networkclock_symbols=${limits[2]:-436}
sntp_symbols=${limits[3]:-195}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=Tools/built-modules.sh
source "$root/Tools/built-modules.sh"
locate_swift api-count.sh
extract=$toolchain_bin/swift-symbolgraph-extract
[[ -x $extract ]] || { echo "api-count.sh: no $extract" >&2; exit 2; }

out=$root/.build/api-count
mkdir -p "$out"
build_library_modules api-count.sh "$out/build.log"

status=0

find_c_module_flags "$(dirname "$modules_dir")"
for module in NetworkClock SNTP; do
    limit=$networkclock_limit
    symbol_limit=$networkclock_symbols
    # The lower targets whose public types the module names (typealiases): their members are the
    # module's API too.
    named=(NetClockPlatform ClockCore)
    if [[ $module == SNTP ]]; then
        limit=$sntp_limit
        symbol_limit=$sntp_symbols
        named=(TimeValues NetClockPlatform)
    fi
    rm -rf "${out:?}/$module"
    mkdir -p "$out/$module"
    if ! "$extract" -module-name "$module" -minimum-access-level public -skip-synthesized-members \
        -I "$modules_dir" "${c_module_flags[@]}" -output-dir "$out/$module" >"$out/$module.log" 2>&1; then
        cat "$out/$module.log" >&2
        echo "api-count.sh: extracting the symbol graph of $module failed" >&2
        exit 2
    fi
    graphs=("$out/$module/$module.symbols.json")
    for extension_graph in "$out/$module/$module@"*.symbols.json; do
        [[ -f $extension_graph ]] && graphs+=("$extension_graph")
    done
    for lower in "${named[@]}"; do
        rm -rf "${out:?}/$module-$lower"
        mkdir -p "$out/$module-$lower"
        "$extract" -module-name "$lower" -minimum-access-level public -skip-synthesized-members \
            -I "$modules_dir" "${c_module_flags[@]}" -output-dir "$out/$module-$lower" >"$out/$lower.log" 2>&1 || {
            cat "$out/$lower.log" >&2
            echo "api-count.sh: extracting the symbol graph of $lower failed" >&2
            exit 2
        }
        # Read as an extension graph: its members count, its types are counted once, as the
        # module's names.
        cp "$out/$module-$lower/$lower.symbols.json" "$out/$module/$module@$lower-declared.symbols.json"
        graphs+=("$out/$module/$module@$lower-declared.symbols.json")
    done
    "$swift" "$root/Tools/symbol-graphs.swift" count "${list[@]}" "$limit" "$symbol_limit" "${graphs[@]}" || {
        code=$?
        [[ $code -eq 1 ]] || exit 2
        status=1
    }
done
exit $status
