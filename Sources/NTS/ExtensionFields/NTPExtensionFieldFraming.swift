/// Splits bytes into RFC 7822 extension fields, checking every length: the framing shared by
/// NTS packets and the decrypted plaintext of the authenticator.
enum NTPExtensionFieldFraming {
    /// The fields in `bytes[start...]` with their offsets in `bytes`.
    ///
    /// Each field needs a 4-byte header, a length that is a multiple of 4, at least 16 and within
    /// the bytes; at most `maximumFields` fields. Nothing may remain: NTS packets carry no legacy
    /// MAC (RFC 8915 §5.7), so the RFC 7822 §7.5 ambiguity between a MAC and a field never arises.
    static func split(
        _ bytes: [UInt8], from start: Int, maximumFields: Int
    ) throws(NTSError) -> [(offset: Int, field: NTPExtensionField)] {
        var fields: [(offset: Int, field: NTPExtensionField)] = []
        var offset = start
        while offset < bytes.count {
            guard fields.count < maximumFields else {
                throw NTSError(.packetTooLarge, "more than \(maximumFields) extension fields")
            }
            guard let type = WireBytes.uint16(bytes, at: offset),
                let length = WireBytes.uint16(bytes, at: offset + 2)
            else {
                throw NTSError(
                    .truncatedField,
                    "\(bytes.count - offset) bytes at offset \(offset) are not a field header")
            }
            let fieldLength = Int(length)
            guard fieldLength % 4 == 0 else {
                throw NTSError(
                    .misalignedField,
                    "field at offset \(offset) has length \(fieldLength), not a multiple of 4")
            }
            guard fieldLength >= NTPExtensionField.minimumLength else {
                throw NTSError(
                    .fieldTooShort, "field at offset \(offset) has length \(fieldLength), below 16")
            }
            guard fieldLength <= bytes.count - offset else {
                throw NTSError(
                    .truncatedField,
                    "field at offset \(offset) of length \(fieldLength) runs past the \(bytes.count) bytes")
            }
            let body = Array(bytes[(offset + NTPExtensionField.headerSize)..<(offset + fieldLength)])
            fields.append(
                (offset, NTPExtensionField(type: NTPExtensionFieldType(rawValue: type), wireBody: body)))
            offset += fieldLength
        }
        return fields
    }
}
