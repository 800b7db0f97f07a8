import SNTP

extension NTSPacket {
    /// Where the parts of an NTS packet lie in its bytes, with every check of
    /// ``NTSPacket/init(parsing:)`` and nothing copied: what a client needs to check a reply (match
    /// the Unique Identifier, open the authenticator) without an array of fields or of their bodies.
    package struct Layout {
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
            var count = 0
            var uniqueIdentifier: Range<Int>?
            var authenticator: (offset: Int, nonce: Range<Int>, ciphertext: Range<Int>)?
            // A framing error anywhere outranks a misplaced field: the first of those waits for the
            // walk to end.
            var misplaced: NTSError?
            try NTPExtensionFieldFraming.forEachField(
                bytes, from: NTPPacket.headerSize, maximumFields: NTSPacket.maximumFields
            ) { offset, type, end throws(NTSError) in
                count += 1
                guard misplaced == nil else { return }
                do throws(NTSError) {
                    try Self.locate(
                        type, offset: offset, end: end, in: bytes, uniqueIdentifier: &uniqueIdentifier,
                        authenticator: &authenticator)
                } catch {
                    misplaced = error
                }
            }
            if let misplaced { throw misplaced }
            guard let authenticator else {
                throw NTSError(.missingAuthenticator, "\(count) extension fields and no authenticator")
            }
            guard let uniqueIdentifier else {
                throw NTSError(.missingUniqueIdentifier, "no Unique Identifier field")
            }
            self.uniqueIdentifier = uniqueIdentifier
            self.nonce = authenticator.nonce
            self.ciphertext = authenticator.ciphertext
            self.authenticatorOffset = authenticator.offset
        }

        /// Notes where the field `type` at `offset..<end` puts the Unique Identifier or the
        /// authenticator; throws when it is a second one, follows the authenticator, or is too short.
        private static func locate(
            _ type: NTPExtensionFieldType, offset: Int, end: Int, in bytes: [UInt8],
            uniqueIdentifier: inout Range<Int>?,
            authenticator: inout (offset: Int, nonce: Range<Int>, ciphertext: Range<Int>)?
        ) throws(NTSError) {
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
    }
}
