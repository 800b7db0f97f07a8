import SNTP
import TimeValues

/// An NTS-protected NTP packet as received (RFC 8915 §5): the 48-byte header, then extension
/// fields, the last of which is the authenticator. The codec checks the framing only; verifying
/// the authenticator (over ``associatedDataRange``) and matching the Unique Identifier is the
/// caller's work.
package struct NTSPacket: Hashable, Sendable {
    /// The cap on a packet's size in bytes.
    package static let maximumSize = 8_192
    /// The cap on the number of extension fields.
    package static let maximumFields = 64
    /// The shortest Unique Identifier body (RFC 8915 §5.3).
    package static let minimumUniqueIdentifierLength = 32

    /// An extension field and the offset of its first byte in the packet.
    package struct LocatedField: Hashable, Sendable {
        /// The offset of the field's type word in the packet.
        package let offset: Int
        /// The field.
        package let field: NTPExtensionField
    }

    /// The NTP header.
    package let header: NTPPacket
    /// Every extension field in order, the authenticator last.
    package let fields: [LocatedField]
    /// The body of the Unique Identifier field (padding included).
    package let uniqueIdentifier: [UInt8]
    /// The authenticator's nonce and ciphertext.
    package let authenticator: NTSAuthenticator
    /// The offset of the authenticator field.
    package let authenticatorOffset: Int

    /// The bytes the authenticator covers as associated data: everything before it.
    package var associatedDataRange: Range<Int> { 0..<authenticatorOffset }

    /// Parses a packet; total for any input.
    package init(parsing bytes: [UInt8]) throws(NTSError) {
        let layout = try Layout(parsing: bytes)
        let header: NTPPacket
        do {
            header = try NTPPacket(decoding: bytes)
        } catch {
            throw NTSError(.truncatedField, "packet of \(bytes.count) bytes is shorter than an NTP header")
        }
        self.header = header
        self.fields = try NTPExtensionFieldFraming.split(
            bytes, from: NTPPacket.headerSize, maximumFields: Self.maximumFields
        ).map { LocatedField(offset: $0.offset, field: $0.field) }
        self.uniqueIdentifier = Array(bytes[layout.uniqueIdentifier])
        self.authenticator = NTSAuthenticator(
            nonce: Array(bytes[layout.nonce]), ciphertext: Array(bytes[layout.ciphertext]))
        self.authenticatorOffset = layout.authenticatorOffset
    }

    /// The Unique Identifier of a packet that carries no authenticator, such as an NTS NAK (RFC 8915
    /// §5.7: a Kiss-o'-Death `NTSN` echoing the request's identifier); nil when it has none.
    /// The fields' framing is checked as for any packet.
    package static func uniqueIdentifier(inUnauthenticated bytes: [UInt8]) throws(NTSError) -> [UInt8]? {
        guard bytes.count <= maximumSize else {
            throw NTSError(.packetTooLarge, "packet of \(bytes.count) bytes exceeds \(maximumSize)")
        }
        guard bytes.count > NTPPacket.headerSize else { return nil }
        let split = try NTPExtensionFieldFraming.split(
            bytes, from: NTPPacket.headerSize, maximumFields: maximumFields)
        let identifiers = split.filter { $0.field.type == .uniqueIdentifier }
        guard identifiers.count <= 1 else {
            throw NTSError(.duplicateUniqueIdentifier, "\(identifiers.count) Unique Identifier fields")
        }
        return identifiers.first?.field.body
    }

    /// The wire bytes of a header followed by fields (no checks: a server or test builds what it means).
    package static func encode(header: NTPPacket, fields: [NTPExtensionField]) -> [UInt8] {
        header.encoded() + fields.flatMap { $0.encoded() }
    }

    /// This packet's wire bytes: equal to the bytes it was parsed from.
    package func encoded() -> [UInt8] {
        Self.encode(header: header, fields: fields.map(\.field))
    }
}
