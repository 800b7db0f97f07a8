#!/usr/bin/env bash
# Builds the DocC documentation of the library products NetworkClock and SNTP.
#
#   Tools/docs.sh [MODULE...]      (default: NetworkClock SNTP)
#
# Builds the modules (`swift build --target NetworkClock`, debug, in .build), extracts each one's
# public symbol graph with the toolchain's `swift-symbolgraph-extract -minimum-access-level public`
# into .build/docs/symbol-graphs/<Module>, and converts it with its catalog
# Sources/<Module>/<Module>.docc using the toolchain's `docc convert --warnings-as-errors` into
# .build/docs/<Module>.doccarchive (a static site: serve the archive's directory and open
# /documentation/<module>/). No package plugin is used.
#
# Exit status: 0 when every archive was built without a single warning, 1 when docc reported a
# warning or an error (a broken ``link``, a malformed page, a documented parameter that does not
# exist, …) or a public symbol has no documentation comment (they are printed), 2 on a usage or
# build error.
#
# Environment: SWIFT (default: swift on PATH, else /opt/swift/usr/bin/swift); DOCC (default: docc
# next to it).
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
}

modules=()
for argument in "$@"; do
    case $argument in
        -h | --help) usage ;;
        NetworkClock | SNTP) modules+=("$argument") ;;
        *) echo "docs.sh: unknown module '$argument' (known: NetworkClock, SNTP)" >&2; exit 2 ;;
    esac
done
[[ ${#modules[@]} -gt 0 ]] || modules=(NetworkClock SNTP)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=Tools/built-modules.sh
source "$root/Tools/built-modules.sh"
locate_swift docs.sh
extract=$toolchain_bin/swift-symbolgraph-extract
docc=${DOCC:-$toolchain_bin/docc}
[[ -x $extract ]] || { echo "docs.sh: no $extract" >&2; exit 2; }
[[ -x $docc ]] || { echo "docs.sh: no docc at $docc (set DOCC)" >&2; exit 2; }

out=$root/.build/docs
mkdir -p "$out"
build_library_modules docs.sh "$out/build.log"

status=0

find_c_module_flags "$(dirname "$modules_dir")"
for module in "${modules[@]}"; do
    catalog=$root/Sources/$module/$module.docc
    [[ -d $catalog ]] || { echo "docs.sh: no catalog $catalog" >&2; exit 2; }
    graphs=$out/symbol-graphs/$module
    archive=$out/$module.doccarchive
    rm -rf "$graphs" "$archive"
    mkdir -p "$graphs"
    if ! "$extract" -module-name "$module" -minimum-access-level public -emit-extension-block-symbols \
        -skip-inherited-docs -I "$modules_dir" "${c_module_flags[@]}" -output-dir "$graphs" >"$out/$module-extract.log" 2>&1; then
        cat "$out/$module-extract.log" >&2
        echo "docs.sh: extracting the symbol graph of $module failed" >&2
        exit 2
    fi
    echo "== $module: docc convert -> ${archive#"$root"/}"
    # docc itself does not mind an undocumented symbol; the style guide does.
    if ! "$swift" "$root/Tools/symbol-graphs.swift" undocumented "$graphs"/*.symbols.json >&2; then
        echo "!! $module: public symbols without a documentation comment (above)" >&2
        status=1
    fi
    if "$docc" convert "$catalog" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.netclock.$module" \
        --fallback-default-module-kind "Framework" --output-path "$archive" --warnings-as-errors \
        >"$out/$module-docc.log" 2>&1; then
        # Even a clean run may print notes; show anything that is not the success line.
        grep -v -E '^(Finished|Generated documentation archive at|$)' "$out/$module-docc.log" || true
        echo "   docc: 0 warnings"
    else
        cat "$out/$module-docc.log" >&2
        count=$(grep -c -E '(warning|error):' "$out/$module-docc.log" || true)
        echo "!! $module: docc failed with ${count:-?} warnings or errors (log: $out/$module-docc.log)" >&2
        status=1
    fi
done
exit $status
