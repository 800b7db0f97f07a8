#!/usr/bin/env bash
# Counts the public API of the library products NetworkClock and SNTP (with the time values SNTP
# names from TimeBase).
#
#   Tools/api-count.sh [--list] [NETWORKCLOCK_LIMIT [SNTP_LIMIT]]
#
# Builds both modules (`swift build --target NetworkClock`, debug, in .build), extracts their
# symbol graphs with `swift-symbolgraph-extract -minimum-access-level public` into
# .build/api-count/<Module>, and prints per module the top-level public types (structs, enums,
# classes, protocols, actors and typealiases whose path has one component) and the number of
# public symbols it declares (synthesized members such as `!=` are not counted; members of
# extensions to the other module's types are). --list prints one type per line with its kind.
#
# Exit status: 0 when NetworkClock has at most NETWORKCLOCK_LIMIT (default 15) and SNTP at most
# SNTP_LIMIT (default 12) top-level public types, 1 when a module is over its limit, 2 on a usage
# or build error.
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
[[ ${#limits[@]} -le 2 ]] || { echo "api-count.sh: at most two limits" >&2; exit 2; }
networkclock_limit=${limits[0]:-15}
sntp_limit=${limits[1]:-12}

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
    [[ $module == SNTP ]] && limit=$sntp_limit
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
    # SNTP names TimeBase's public time values (typealiases): their members are SNTP's API too.
    if [[ $module == SNTP ]]; then
        rm -rf "${out:?}/TimeBase"
        mkdir -p "$out/TimeBase"
        "$extract" -module-name TimeBase -minimum-access-level public -skip-synthesized-members \
            -I "$modules_dir" "${c_module_flags[@]}" -output-dir "$out/TimeBase" >"$out/TimeBase.log" 2>&1 || {
            cat "$out/TimeBase.log" >&2
            echo "api-count.sh: extracting the symbol graph of TimeBase failed" >&2
            exit 2
        }
        # Read as an extension graph: its members count, its types are counted once, as SNTP's names.
        cp "$out/TimeBase/TimeBase.symbols.json" "$out/$module/$module@TimeBase.symbols.json"
        graphs+=("$out/$module/$module@TimeBase.symbols.json")
    fi
    "$swift" "$root/Tools/symbol-graphs.swift" count "${list[@]}" "$limit" "${graphs[@]}" || {
        code=$?
        [[ $code -eq 1 ]] || exit 2
        status=1
    }
done
exit $status
