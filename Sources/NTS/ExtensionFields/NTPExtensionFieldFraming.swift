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
        try forEachField(bytes, from: start, maximumFields: maximumFields) { offset, type, end in
            let body = Array(bytes[(offset + NTPExtensionField.headerSize)..<end])
            fields.append((offset, NTPExtensionField(type: type, wireBody: body)))
        }
        return fields
    }

    /// Calls `body` with the offset, type and end (one past its last byte) of each field of
    /// `bytes[start...]` in order, checked as ``split(_:from:maximumFields:)`` checks them: a
    /// packet's fields walked with no array of them (a client's reply path). A framing error is
    /// thrown when the walk reaches it, after `body` saw the fields before it. `bytes` are indexed
    /// from zero (an array, or memory such as a decrypted plaintext).
    static func forEachField<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, from start: Int, maximumFields: Int,
        _ body: (_ offset: Int, _ type: NTPExtensionFieldType, _ end: Int) throws(NTSError) -> Void
    ) throws(NTSError) where Bytes.Index == Int {
        var count = 0
        var offset = start
        while offset < bytes.count {
            guard count < maximumFields else {
                throw NTSError(.packetTooLarge, "more than \(maximumFields) extension fields")
            }
            guard offset <= bytes.count - 4 else {
                throw NTSError(
                    .truncatedField,
                    "\(bytes.count - offset) bytes at offset \(offset) are not a field header")
            }
            let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let fieldLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
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
            try body(offset, NTPExtensionFieldType(rawValue: type), offset + fieldLength)
            count += 1
            offset += fieldLength
        }
    }
}
