/// The 16-bit type of an NTPv4 extension field (RFC 7822 §3); the NTS ones are named (RFC 8915 §5.3–5.6).
package struct NTPExtensionFieldType: RawRepresentable, Hashable, Sendable {
    /// The field type as on the wire.
    package let rawValue: UInt16

    /// Creates a type from its number.
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Unique Identifier (RFC 8915 §5.3).
    package static let uniqueIdentifier = Self(rawValue: 0x0104)
    /// NTS Cookie (§5.4).
    package static let cookie = Self(rawValue: 0x0204)
    /// NTS Cookie Placeholder (§5.5).
    package static let cookiePlaceholder = Self(rawValue: 0x0304)
    /// NTS Authenticator and Encrypted Extension Fields (§5.6).
    package static let authenticator = Self(rawValue: 0x0404)
}
