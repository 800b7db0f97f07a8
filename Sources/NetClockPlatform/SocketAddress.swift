#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address and UDP/TCP port: where a request goes and where a reply must come from.
package struct SocketAddress: Hashable, Sendable {
    /// The address family.
    package enum Family: Hashable, Sendable {
        /// IPv4 (`AF_INET`).
        case ipv4
        /// IPv6 (`AF_INET6`).
        case ipv6
    }

    /// The address family.
    package let family: Family
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    package let addressBytes: [UInt8]
    /// The port number.
    package let port: UInt16
    /// The IPv6 scope (interface) ID; 0 for IPv4 and global addresses.
    package let scopeID: UInt32

    /// Creates an IPv4 address from its four bytes.
    package init(ipv4 bytes: (UInt8, UInt8, UInt8, UInt8), port: UInt16) {
        self.family = .ipv4
        self.addressBytes = [bytes.0, bytes.1, bytes.2, bytes.3]
        self.port = port
        self.scopeID = 0
    }

    /// Parses a numeric IPv4 (`127.0.0.1`) or IPv6 (`::1`, without brackets) address; nil if
    /// `text` is not one.
    package init?(numericHost text: String, port: UInt16) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.family = .ipv4
            self.addressBytes = withUnsafeBytes(of: &v4) { Array($0) }
            self.port = port
            self.scopeID = 0
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.family = .ipv6
            self.addressBytes = withUnsafeBytes(of: &v6) { Array($0) }
            self.port = port
            self.scopeID = 0
            return
        }
        return nil
    }

    /// The loopback address of `family`, `127.0.0.1` or `::1`, with `port`.
    package static func loopback(_ family: Family, port: UInt16) -> SocketAddress {
        let bytes: [UInt8] = family == .ipv4 ? [127, 0, 0, 1] : [UInt8](repeating: 0, count: 15) + [1]
        return SocketAddress(family: family, addressBytes: bytes, port: port, scopeID: 0)
    }

    /// The same address with another port.
    package func withPort(_ port: UInt16) -> SocketAddress {
        SocketAddress(family: family, addressBytes: addressBytes, port: port, scopeID: scopeID)
    }

    private init(family: Family, addressBytes: [UInt8], port: UInt16, scopeID: UInt32) {
        self.family = family
        self.addressBytes = addressBytes
        self.port = port
        self.scopeID = scopeID
    }

    /// The address alone in its usual text form: `192.0.2.1` or `2001:db8::1`.
    package var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = self.family == .ipv4 ? AF_INET : AF_INET6
        let ok = addressBytes.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { out in
                inet_ntop(family, raw.baseAddress, out.baseAddress, socklen_t(out.count)) != nil
            }
        }
        guard ok else { return addressBytes.map { String($0) }.joined(separator: ".") }
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether this is a loopback address (127.0.0.0/8 or ::1).
    package var isLoopback: Bool {
        switch family {
        case .ipv4: return addressBytes.first == 127
        case .ipv6: return addressBytes == [UInt8](repeating: 0, count: 15) + [1]
        }
    }

    // MARK: Conversions to and from the C structures

    /// Reads a C socket address; nil for families other than IPv4 and IPv6 or a short length.
    init?(raw: UnsafePointer<sockaddr>, length: socklen_t) {
        switch Int32(raw.pointee.sa_family) {
        case AF_INET where Int(length) >= MemoryLayout<sockaddr_in>.size:
            let v4 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self)
            var address = v4.sin_addr
            self.init(
                family: .ipv4, addressBytes: withUnsafeBytes(of: &address) { Array($0) },
                port: UInt16(bigEndian: v4.sin_port), scopeID: 0)
        case AF_INET6 where Int(length) >= MemoryLayout<sockaddr_in6>.size:
            let v6 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self)
            var address = v6.sin6_addr
            self.init(
                family: .ipv6, addressBytes: withUnsafeBytes(of: &address) { Array($0) },
                port: UInt16(bigEndian: v6.sin6_port), scopeID: v6.sin6_scope_id)
        default:
            return nil
        }
    }

    /// Reads a C socket address from generic storage (as `recvfrom` and `getsockname` fill it).
    package init?(storage: sockaddr_storage, length: socklen_t) {
        var storage = storage
        let address = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(raw: $0, length: length) }
        }
        guard let address else { return nil }
        self = address
    }

    /// `AF_INET` or `AF_INET6`.
    package var familyConstant: Int32 { family == .ipv4 ? AF_INET : AF_INET6 }

    /// Calls `body` with this address as a C `sockaddr` and its length.
    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: addressBytes.prefix(4)) }
            return withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            v6.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: addressBytes.prefix(16)) }
            return withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}

extension SocketAddress: CustomStringConvertible {
    /// `host:port` for IPv4, `[host]:port` for IPv6.
    package var description: String {
        family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }
}
