import COpenSSL

/// A TLS protocol version, as a minimum or maximum a connection accepts and as the one it agreed.
package struct TLSProtocolVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The version's wire value (`0x0303` for TLS 1.2, `0x0304` for TLS 1.3).
    package let rawValue: Int32

    /// The version with wire value `rawValue`.
    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// TLS 1.2 (RFC 5246), for the HTTPS time client and for hostile tests.
    package static let tls12 = TLSProtocolVersion(rawValue: TLS1_2_VERSION)
    /// TLS 1.3 (RFC 8446), the minimum NTS-KE accepts.
    package static let tls13 = TLSProtocolVersion(rawValue: TLS1_3_VERSION)

    /// Orders by wire value (later versions are greater).
    package static func < (lhs: TLSProtocolVersion, rhs: TLSProtocolVersion) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `TLS 1.2`, `TLS 1.3`, or the wire value in hexadecimal.
    package var description: String {
        switch self {
        case .tls12: return "TLS 1.2"
        case .tls13: return "TLS 1.3"
        default: return "TLS version 0x" + String(rawValue, radix: 16)
        }
    }
}
