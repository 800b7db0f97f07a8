/// One NTPv4 extension field (RFC 7822 §3): type, length (of the whole field, header included,
/// a multiple of 4), body padded with zeros.
package struct NTPExtensionField: Hashable, Sendable {
    /// The size of the type and length words.
    package static let headerSize = 4
    /// The shortest field RFC 7822 §3 allows.
    package static let minimumLength = 16
    /// The shortest *last* field of a packet without a legacy MAC (RFC 7822 §7.5). NTS packets carry
    /// no legacy MAC, and their last field is the authenticator.
    package static let minimumLastLength = 28
    /// The longest field: the 16-bit length, rounded down to a multiple of 4.
    package static let maximumLength = 65_532

    /// The field type.
    package let type: NTPExtensionFieldType
    /// The body as on the wire, padding included; its length is a multiple of 4.
    package let body: [UInt8]

    /// A field from a body as on the wire (the parser's view); the body is padded with zeros to a
    /// multiple of 4 and to the 16-byte minimum. Throws ``NTSError/Code/unencodable`` past 65532 bytes.
    package init(type: NTPExtensionFieldType, body: [UInt8]) throws(NTSError) {
        let length = max(
            Self.minimumLength, WireBytes.padded4(Self.headerSize + min(body.count, Self.maximumLength)))
        guard body.count <= Self.maximumLength - Self.headerSize else {
            throw NTSError(.unencodable, "extension field body of \(body.count) bytes")
        }
        self.type = type
        self.body = body + Array(repeating: 0, count: length - Self.headerSize - body.count)
    }

    /// A field taken from the wire as it is (the caller checked the framing).
    init(type: NTPExtensionFieldType, wireBody: [UInt8]) {
        self.type = type
        self.body = wireBody
    }

    /// The field's length on the wire, header included.
    package var length: Int { Self.headerSize + body.count }

    /// The field's wire bytes.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        WireBytes.append(type.rawValue, to: &bytes)
        WireBytes.append(UInt16(truncatingIfNeeded: length), to: &bytes)
        return bytes + body
    }
}

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
