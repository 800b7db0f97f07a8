/// Which address families to use when resolving a server name.
public enum AddressFamilyPreference: Hashable, Sendable {
    /// IPv4 and IPv6.
    case any
    /// IPv4 only (`-4`).
    case ipv4Only
    /// IPv6 only (`-6`).
    case ipv6Only
}

/// Resolves host names to every A and AAAA address with `getaddrinfo`.
public enum Resolver {
    /// Returns every distinct address of `host` (a name, an IPv4 literal or an IPv6 literal without
    /// brackets) in the order the system resolver gives, at most `limit` of them.
    /// - Throws: ``TransportError/resolutionFailed(host:reason:)`` or
    ///   ``TransportError/noAddresses(host:)``.
    public static func resolve(
        _ host: String, port: UInt16, family: AddressFamilyPreference = .any, limit: Int = .max
    ) throws(TransportError) -> [SocketAddress] {
        guard !host.isEmpty, !host.utf8.contains(0) else {
            throw .resolutionFailed(host: host, reason: "empty or invalid host name")
        }
        let familyConstant: Int32
        switch family {
        case .any: familyConstant = Syscalls.addressFamilyUnspecified
        case .ipv4Only: familyConstant = Syscalls.addressFamilyIPv4
        case .ipv6Only: familyConstant = Syscalls.addressFamilyIPv6
        }
        switch Syscalls.resolve(host: host, port: port, family: familyConstant) {
        case .success(let addresses):
            guard !addresses.isEmpty else { throw .noAddresses(host: host) }
            return Array(addresses.prefix(max(1, limit)))
        case .failure(let failure):
            if failure.isNoSuchName && family != .any {
                throw .noAddresses(host: host)
            }
            throw .resolutionFailed(host: host, reason: failure.message)
        }
    }
}
