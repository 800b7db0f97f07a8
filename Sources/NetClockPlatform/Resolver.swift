#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        _ host: String, port: UInt16, family: AddressFamily = .any, limit: Int = .max,
        socketKind: SocketKind = .datagram
    ) throws(TransportError) -> [SocketAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]"), name.count >= 2 {
            name = String(name.dropFirst().dropLast())
        }
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw .resolutionFailed(host: host, reason: "empty or invalid host name")
        }
        if let problem = Self.notAHost(name) {
            throw .resolutionFailed(host: host, reason: problem)
        }
        let familyConstant: Int32
        switch family {
        case .any: familyConstant = Syscalls.addressFamilyUnspecified
        case .ipv4: familyConstant = Syscalls.addressFamilyIPv4
        case .ipv6: familyConstant = Syscalls.addressFamilyIPv6
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

    /// Why `name` cannot be a host name or address, before any lookup: a `host:port` text given
    /// as a host (an IPv6 literal has at least two colons), brackets left unmatched, or spaces.
    static func notAHost(_ name: String) -> String? {
        if name.contains(where: { $0.isWhitespace }) {
            return "a host name holds no spaces"
        }
        if name.contains("[") || name.contains("]") {
            return "unmatched brackets: an IPv6 address is written [v6addr] or without brackets"
        }
        if name.utf8.filter({ $0 == UInt8(ascii: ":") }).count == 1 {
            return "a host holds no ':port': give the port on its own"
        }
        return nil
    }
}

// `getaddrinfo`, kept with the resolver that is its only caller.
extension Syscalls {
    /// Resolves `host` to socket addresses with `getaddrinfo`, for datagram (UDP) or stream (TCP)
    /// sockets. Returns the addresses, or the `EAI_*` code and its description.
    static func resolve(host: String, port: UInt16, family: Int32, stream: Bool = false)
        -> Result<[SocketAddress], ResolutionFailure>
    {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = stream ? streamType : datagramType
        #if canImport(Glibc)
            hints.ai_protocol = Int32(stream ? IPPROTO_TCP : IPPROTO_UDP)
        #else
            hints.ai_protocol = stream ? IPPROTO_TCP : IPPROTO_UDP
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            let message = gai_strerror(code).map { String(cString: $0) } ?? "code \(code)"
            let systemCode: Errno? = code == EAI_SYSTEM ? .current : nil
            return .failure(ResolutionFailure(code: code, systemErrno: systemCode, message: message))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let raw = entry.pointee.ai_addr,
                let address = SocketAddress(raw: raw, length: entry.pointee.ai_addrlen),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return .success(addresses)
    }

    /// Why `getaddrinfo` failed: its `EAI_*` code (not an errno), the errno behind `EAI_SYSTEM`,
    /// and `gai_strerror`'s text.
    struct ResolutionFailure: Error {
        var code: Int32
        var systemErrno: Errno?
        var message: String
        /// Whether the failure is "no such name" rather than a temporary problem.
        var isNoSuchName: Bool {
            code == EAI_NONAME || code == AddressInfoCode.noData || code == AddressInfoCode.addressFamily
        }
    }

    static var addressFamilyUnspecified: Int32 { AF_UNSPEC }
    static var addressFamilyIPv4: Int32 { AF_INET }
    static var addressFamilyIPv6: Int32 { AF_INET6 }
}

/// `getaddrinfo`'s codes that the Glibc module does not export (GNU extensions behind
/// `__USE_GNU` in `<netdb.h>`), by name.
private enum AddressInfoCode {
    #if canImport(Glibc)
        /// `EAI_NODATA` (glibc: -5): the name exists but has no address.
        static let noData: Int32 = -5
        /// `EAI_ADDRFAMILY` (glibc: -9): the name has no address of the requested family.
        static let addressFamily: Int32 = -9
    #else
        /// `EAI_NODATA`: the name exists but has no address.
        static let noData: Int32 = EAI_NODATA
        /// `EAI_ADDRFAMILY`: the name has no address of the requested family.
        static let addressFamily: Int32 = EAI_ADDRFAMILY
    #endif
}
