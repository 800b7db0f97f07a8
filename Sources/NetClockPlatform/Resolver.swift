/// Which address families to use when resolving a server name.
package enum AddressFamilyPreference: Hashable, Sendable {
    /// IPv4 and IPv6.
    case any
    /// IPv4 only (`-4`).
    case ipv4Only
    /// IPv6 only (`-6`).
    case ipv6Only
}

/// Resolves host names to every A and AAAA address with `getaddrinfo`.
package enum Resolver {
    /// The kind of socket the resolved addresses are for.
    package enum SocketKind: Hashable, Sendable {
        /// Datagram (UDP) sockets, as for NTP.
        case datagram
        /// Stream (TCP) sockets, as for HTTP.
        case stream
    }

    /// Returns every distinct address of `host` for sockets of `socketKind`, in the order the system
    /// resolver gives, at most `limit` of them.
    ///
    /// `host` is a name, an IPv4 literal, or an IPv6 literal with or without the brackets URLs put
    /// around it (`[::1]` and `::1` both work; a zone ID such as `fe80::1%eth0` is passed on).
    /// - Throws: ``TransportError/resolutionFailed(host:reason:)`` or
    ///   ``TransportError/noAddresses(host:)``.
    package static func resolve(
        _ host: String, port: UInt16, family: AddressFamilyPreference = .any, limit: Int = .max,
        socketKind: SocketKind = .datagram
    ) throws(TransportError) -> [SocketAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]"), name.count >= 2 {
            name = String(name.dropFirst().dropLast())
        }
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw .resolutionFailed(host: host, reason: "empty or invalid host name")
        }
        let familyConstant: Int32
        switch family {
        case .any: familyConstant = Syscalls.addressFamilyUnspecified
        case .ipv4Only: familyConstant = Syscalls.addressFamilyIPv4
        case .ipv6Only: familyConstant = Syscalls.addressFamilyIPv6
        }
        switch Syscalls.resolve(host: name, port: port, family: familyConstant, stream: socketKind == .stream)
        {
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
