# Shared by Tools/api-count.sh, Tools/docs.sh and Tools/check-readme-examples.sh (sourced, not run):
# finding the toolchain, building the library modules, and the flags a client build of them needs.

# Sets `swift` and `toolchain_bin` (the directory of the real swift binary); exits 2 when there is
# no swift. $1 names the calling tool in the message.
locate_swift() {
    swift=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
    [[ -x $swift ]] || { echo "$1: no swift (set SWIFT)" >&2; exit 2; }
    toolchain_bin=$(dirname "$(readlink -f "$swift")")
}

# Builds the NetworkClock target (and so SNTP and everything below it) with `swift build`, its
# output in $2, and sets `modules_dir` to where SwiftPM put the .swiftmodule files
# (.build/<triple>/debug/Modules); exits 2 when the build fails. $1 names the calling tool.
build_library_modules() {
    if ! "$swift" build --target NetworkClock >"$2" 2>&1; then
        tail -n 40 "$2" >&2
        echo "$1: swift build failed" >&2
        exit 2
    fi
    modules_dir=$("$swift" build --show-bin-path)/Modules
}

# Sets `c_module_flags` to the flags that make the package's C targets visible, as a client build
# sees them: the module maps SwiftPM generated in the build directory $1 (.build/<triple>/debug),
# and those of the system-library targets (COpenSSL: NetworkClock uses NetClockTLS for https://).
find_c_module_flags() {
    c_module_flags=()
    local map
    for map in "$1"/*.build/module.modulemap "$(dirname "${BASH_SOURCE[0]}")"/../Sources/*/module.modulemap; do
        [[ -f $map ]] && c_module_flags+=(-Xcc "-fmodule-map-file=$(readlink -f "$map")")
    done
}
