import NTS

extension FakeNTSServer {
    /// Reads an NTS-KE request's records as they arrive, bounded: the client's request is a few
    /// records long, so more than ``maximumSize`` bytes is refused.
    struct KERequestReader {
        /// The cap on a request's bytes.
        static let maximumSize = 4_096

        /// What the reader has concluded.
        enum Progress: Equatable {
            /// The request is not complete yet.
            case needMoreBytes
            /// End of Message arrived: the records before it.
            case complete([NTSKERecord])
            /// The request is malformed or too large.
            case invalid
        }

        /// Bytes received and not yet parsed.
        private var pending: [UInt8] = []
        /// The records so far.
        private var records: [NTSKERecord] = []
        /// Every byte received, checked against ``maximumSize``.
        private var received = 0

        /// Takes the next bytes of the stream.
        mutating func consume(_ bytes: [UInt8]) -> Progress {
            received += bytes.count
            guard received <= Self.maximumSize else { return .invalid }
            pending += bytes
            var offset = 0
            while pending.count - offset >= NTSKERecord.headerSize {
                let word = UInt16(pending[offset]) << 8 | UInt16(pending[offset + 1])
                let length = Int(UInt16(pending[offset + 2]) << 8 | UInt16(pending[offset + 3]))
                let start = offset + NTSKERecord.headerSize
                guard pending.count - start >= length else { break }
                let type = NTSKERecordType(rawValue: word)
                guard
                    let record = try? NTSKERecord(
                        critical: word & 0x8000 != 0, type: type,
                        body: Array(pending[start..<(start + length)]))
                else { return .invalid }
                offset = start + length
                if type == .endOfMessage {
                    return offset == pending.count ? .complete(records) : .invalid
                }
                records.append(record)
            }
            pending.removeFirst(offset)
            return .needMoreBytes
        }
    }
}
