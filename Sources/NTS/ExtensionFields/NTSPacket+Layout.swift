import SNTP

extension NTSPacket {
    /// Where the parts of an NTS packet lie in its bytes, with every check of
    /// ``NTSPacket/init(parsing:)`` and nothing copied: what a client needs to check a reply (match
    /// the Unique Identifier, open the authenticator) without an array per field.
    package struct Layout {
        /// Every extension field: its offset, type and end (one past its last byte).
        let fields: [(offset: Int, type: NTPExtensionFieldType, end: Int)]
        /// The body of the Unique Identifier field (padding included).
        package let uniqueIdentifier: Range<Int>
        /// The authenticator's nonce.
        package let nonce: Range<Int>
        /// The authenticator's ciphertext.
        package let ciphertext: Range<Int>
        /// The offset of the authenticator field: the associated data is everything before it.
        package let authenticatorOffset: Int

        /// The layout of `bytes`; throws the error ``NTSPacket/init(parsing:)`` would.
        package init(parsing bytes: [UInt8]) throws(NTSError) {
            guard bytes.count <= NTSPacket.maximumSize else {
                throw NTSError(
                    .packetTooLarge, "packet of \(bytes.count) bytes exceeds \(NTSPacket.maximumSize)")
            }
            guard bytes.count >= NTPPacket.headerSize else {
                throw NTSError(
                    .truncatedField, "packet of \(bytes.count) bytes is shorter than an NTP header")
            }
            guard bytes.count > NTPPacket.headerSize else {
                throw NTSError(.noExtensionFields, "a bare NTP header without NTS extension fields")
            }
            let fields = try NTPExtensionFieldFraming.layout(
                bytes, from: NTPPacket.headerSize, maximumFields: NTSPacket.maximumFields)
            var uniqueIdentifier: Range<Int>?
            var authenticator: (offset: Int, nonce: Range<Int>, ciphertext: Range<Int>)?
            for (offset, type, end) in fields {
                if authenticator != nil {
                    if type == .authenticator {
                        throw NTSError(.duplicateAuthenticator, "a second authenticator at offset \(offset)")
                    }
                    throw NTSError(
                        .authenticatorNotLast, "field of type \(type.rawValue) after the authenticator")
                }
                let body = (offset + NTPExtensionField.headerSize)..<end
                switch type {
                case .uniqueIdentifier:
                    guard uniqueIdentifier == nil else {
                        throw NTSError(
                            .duplicateUniqueIdentifier, "a second Unique Identifier at offset \(offset)")
                    }
                    guard body.count >= NTSPacket.minimumUniqueIdentifierLength else {
                        throw NTSError(.fieldTooShort, "Unique Identifier of \(body.count) bytes, below 32")
                    }
                    uniqueIdentifier = body
                case .authenticator:
                    guard end - offset >= NTPExtensionField.minimumLastLength else {
                        throw NTSError(.fieldTooShort, "last field of \(end - offset) bytes, below 28")
                    }
                    let (nonce, ciphertext) = try NTSAuthenticator.ranges(in: bytes, body: body)
                    authenticator = (offset, nonce, ciphertext)
                default:
                    break
                }
            }
            guard let authenticator else {
                throw NTSError(.missingAuthenticator, "\(fields.count) extension fields and no authenticator")
            }
            guard let uniqueIdentifier else {
                throw NTSError(.missingUniqueIdentifier, "no Unique Identifier field")
            }
            self.fields = fields
            self.uniqueIdentifier = uniqueIdentifier
            self.nonce = authenticator.nonce
            self.ciphertext = authenticator.ciphertext
            self.authenticatorOffset = authenticator.offset
        }
    }
}
