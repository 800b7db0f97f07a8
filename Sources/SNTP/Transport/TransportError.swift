/// A failure below the NTP protocol: resolving a name, or sending and receiving datagrams.
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host name could not be resolved (`getaddrinfo` failed).
    case resolutionFailed(host: String, reason: String)
    /// The name resolved, but to no address of the requested family.
    case noAddresses(host: String)
    /// A system call failed.
    case systemCall(operation: String, errno: Int32, reason: String)
    /// The destination answered with ICMP port unreachable (`ECONNREFUSED`): nothing listens there.
    case connectionRefused(address: SocketAddress)
    /// No acceptable reply arrived before the deadline.
    case timedOut(address: SocketAddress, after: Duration)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .resolutionFailed(let host, let reason):
            return "cannot resolve \(host): \(reason)"
        case .noAddresses(let host):
            return "\(host) has no address of the requested family"
        case .systemCall(let operation, let code, let reason):
            return "\(operation) failed: \(reason) (errno \(code))"
        case .connectionRefused(let address):
            return "connection refused by \(address) (ICMP port unreachable: no NTP server there)"
        case .timedOut(let address, let after):
            return "no reply from \(address) within \(after.formattedSeconds)"
        }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`, for display and statistics only.
    public var secondsDouble: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }

    /// Creates a duration from a `Double` number of seconds, rounded to the nanosecond;
    /// nil for values that are not finite or are beyond ±292 years.
    public init?(secondsDouble value: Double) {
        guard value.isFinite, abs(value) < 9.2e9 else { return nil }
        let nanoseconds = (value * 1e9).rounded()
        self = .nanoseconds(Int64(nanoseconds))
    }

    /// A short human form such as `12.345ms`, `1.500000s` or `-0.2ms`.
    public var formattedSeconds: String {
        let seconds = secondsDouble
        let magnitude = abs(seconds)
        if magnitude < 1e-3 && magnitude > 0 { return Self.fixed(seconds * 1e6, 1) + "µs" }
        if magnitude < 1 { return Self.fixed(seconds * 1e3, 3) + "ms" }
        return Self.fixed(seconds, 6) + "s"
    }

    /// Formats `value` with `digits` digits after the decimal point, without Foundation.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return String(value) }
        let whole = Int64(scaled)
        let integer = whole / Int64(scale)
        let fraction = String(whole % Int64(scale))
        let padded = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
        let sign = value < 0 && whole != 0 ? "-" : ""
        return sign + String(integer) + (digits > 0 ? "." + padded : "")
    }
}
