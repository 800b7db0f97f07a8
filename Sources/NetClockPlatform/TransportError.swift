/// A failure below the NTP protocol: resolving a name, or sending and receiving datagrams.
package enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host name could not be resolved (`getaddrinfo` failed).
    case resolutionFailed(host: String, reason: String)
    /// The name resolved, but to no address of the requested family.
    case noAddresses(host: String)
    /// A system call failed with `errno` (the reason is usually its `strerror` text).
    case systemCall(operation: String, errno: Errno, reason: String)
    /// The destination answered with ICMP port unreachable (`ECONNREFUSED`): nothing listens there.
    case connectionRefused(address: SocketAddress)
    /// No acceptable reply arrived before the deadline.
    case timedOut(address: SocketAddress, after: Duration)

    /// A readable explanation.
    package var description: String {
        switch self {
        case .resolutionFailed(let host, let reason):
            return "cannot resolve \(host): \(reason)"
        case .noAddresses(let host):
            return "\(host) has no address of the requested family"
        case .systemCall(let operation, let code, let reason):
            return "\(operation) failed: \(reason) (errno \(code.rawValue))"
        case .connectionRefused(let address):
            return "connection refused by \(address) (ICMP port unreachable: no NTP server there)"
        case .timedOut(let address, let after):
            return "no reply from \(address) within \(after.formattedSeconds)"
        }
    }
}

extension TransportError {
    /// A failed system call, described with `strerror`.
    package static func failed(_ operation: String, errno code: Errno) -> TransportError {
        .systemCall(operation: operation, errno: code, reason: code.description)
    }

    /// A call on a socket or connection that is closed already (``Errno/badFileDescriptor``).
    package static func closed(_ operation: String, _ what: String) -> TransportError {
        .systemCall(operation: operation, errno: .badFileDescriptor, reason: "\(what) is closed")
    }
}
