/// A Monitoring Plugins service state: the exit status and the word of the status line.
package enum PluginStatus: Int32, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The clock is proven within the warning range.
    case ok = 0
    /// Neither proven fine nor proven critical, or a downgrade.
    case warning = 1
    /// The clock is proven beyond the critical range.
    case critical = 2
    /// No trusted time, a bound too wide to judge, or a usage error.
    case unknown = 3

    /// `OK`, `WARNING`, `CRITICAL` or `UNKNOWN`.
    package var description: String {
        switch self {
        case .ok: "OK"
        case .warning: "WARNING"
        case .critical: "CRITICAL"
        case .unknown: "UNKNOWN"
        }
    }
}
