#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// The variables of this process's environment among `names` (`getenv` for each), without
    /// copying the rest of the environment: what reads a few variables at start-up should not pay
    /// for a dictionary of all of them (Foundation's `ProcessInfo.environment`).
    package static func environment(_ names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }
}
