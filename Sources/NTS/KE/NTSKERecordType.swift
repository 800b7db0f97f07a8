/// The 15-bit type of an NTS-KE record (RFC 8915 §4, IANA "NTS Key Establishment Record Types").
///
/// An open set: any 15-bit value can arrive; the known ones are named.
package struct NTSKERecordType: RawRepresentable, Hashable, Sendable {
    /// The type number, 0…0x7FFF.
    package let rawValue: UInt16

    /// Creates a type from its number; the top (critical) bit is dropped.
    package init(rawValue: UInt16) { self.rawValue = rawValue & 0x7FFF }

    /// End of Message (§4.1.1).
    package static let endOfMessage = Self(rawValue: 0)
    /// NTS Next Protocol Negotiation (§4.1.2).
    package static let nextProtocol = Self(rawValue: 1)
    /// Error (§4.1.3).
    package static let error = Self(rawValue: 2)
    /// Warning (§4.1.4).
    package static let warning = Self(rawValue: 3)
    /// AEAD Algorithm Negotiation (§4.1.5).
    package static let aeadAlgorithm = Self(rawValue: 4)
    /// New Cookie for NTPv4 (§4.1.6).
    package static let newCookie = Self(rawValue: 5)
    /// NTPv4 Server Negotiation (§4.1.7).
    package static let ntpServer = Self(rawValue: 6)
    /// NTPv4 Port Negotiation (§4.1.8).
    package static let ntpPort = Self(rawValue: 7)

    /// Whether this client understands the type (0–7).
    package var isKnown: Bool { rawValue <= 7 }
}
