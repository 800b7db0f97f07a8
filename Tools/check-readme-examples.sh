#!/usr/bin/env bash
# Type-checks every Swift example in README.md that imports NetworkClock or SNTP against the
# modules built by `swift build`, as a client outside this package sees them: without the
# package name, so only `public` API is visible. Fails when an example uses anything else.
#
#   Tools/check-readme-examples.sh [BUILD_DIR]   (default: .build/debug)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/.build/debug}
modules=$build/Modules
[[ -d $modules ]] || { echo "check-readme-examples: no $modules (run swift build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each ```swift block that imports one of the products becomes a file: its imports on top, the
# rest inside a function (async when the example awaits).
python3 - "$root/README.md" "$work" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"```swift\n(.*?)```", text, re.S)
count = 0
for block in blocks:
    if not re.search(r"^import (NetworkClock|SNTP)$", block, re.M):
        continue
    lines = block.splitlines()
    imports = [l for l in lines if l.startswith("import ")]
    body = [l for l in lines if not l.startswith("import ")]
    is_async = any("await" in l for l in body)
    count += 1
    with open(f"{sys.argv[2]}/Example{count}.swift", "w") as out:
        out.write("\n".join(imports) + "\n")
        out.write("#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n")
        out.write(f"func example{count}() {'async ' if is_async else ''}throws {{\n")
        out.write("\n".join("    " + l for l in body) + "\n}\n")
print(f"{count} examples", file=sys.stderr)
PY
# shellcheck source=Tools/built-modules.sh
source "$root/Tools/built-modules.sh"
find_c_module_flags "$build"
status=0
for file in "$work"/Example*.swift; do
    if ! swiftc -typecheck -swift-version 6 -I "$modules" "${c_module_flags[@]}" "$file" 2>"$file.log"; then
        echo "check-readme-examples: README example $(basename "$file" .swift) does not compile against the public API:" >&2
        cat "$file" "$file.log" >&2
        status=1
    fi
done
[[ $status -eq 0 ]] && echo "check-readme-examples: every README example compiles against the public API"
exit $status
