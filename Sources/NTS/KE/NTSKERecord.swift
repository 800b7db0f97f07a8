/// One NTS-KE record (RFC 8915 §4): critical bit, 15-bit type, 16-bit body length, body.
package struct NTSKERecord: Hashable, Sendable {
    /// The size of the record header (type word and length).
    package static let headerSize = 4

    /// Whether the critical bit is set.
    package let isCritical: Bool
    /// The record type.
    package let type: NTSKERecordType
    /// The body, at most 65535 bytes.
    package let body: [UInt8]

    /// Creates a record; throws ``NTSError/Code/unencodable`` when the body exceeds 65535 bytes.
    package init(critical: Bool, type: NTSKERecordType, body: [UInt8] = []) throws(NTSError) {
        guard body.count <= Int(UInt16.max) else {
            throw NTSError(.unencodable, "record body of \(body.count) bytes exceeds 65535")
        }
        self.isCritical = critical
        self.type = type
        self.body = body
    }

    /// A record with an empty body (End of Message).
    package init(critical: Bool, type: NTSKERecordType) {
        self.isCritical = critical
        self.type = type
        self.body = []
    }

    /// A record whose body is one big-endian 16-bit value.
    package init(critical: Bool, type: NTSKERecordType, value: UInt16) {
        self.isCritical = critical
        self.type = type
        var body: [UInt8] = []
        WireBytes.append(value, to: &body)
        self.body = body
    }

    /// The record's wire bytes.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize + body.count)
        WireBytes.append((isCritical ? 0x8000 : 0) | type.rawValue, to: &bytes)
        WireBytes.append(UInt16(truncatingIfNeeded: body.count), to: &bytes)
        bytes += body
        return bytes
    }
}
