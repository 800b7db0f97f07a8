import NTS

extension FakeNTSServer {
    /// Builds the NTS-KE response bytes (RFC 8915 §4) a behaviour calls for: pure, so each hostile
    /// shape is visible in the bytes.
    enum KEResponse {
        /// The unknown record type of ``Behaviour/keCriticalUnknownRecord`` and of the filler
        /// records of ``Behaviour/keOversizedResponse``.
        static let unknownType = NTSKERecordType(rawValue: 0x4321)
        /// The body length of each of the two filler records of ``Behaviour/keOversizedResponse``.
        static let fillerLength = 35_000

        /// The response to a valid request: `cookies`, the NTP port `ntpPort`, the configured
        /// server name, shaped by `behaviour`. Throws only when a value does not fit its record.
        static func bytes(
            cookies: [[UInt8]], ntpPort: UInt16, serverName: String?, behaviour: Behaviour
        ) throws(NTSError) -> [UInt8] {
            var response = NTSKEResponse(cookies: cookies, server: serverName, port: ntpPort)
            switch behaviour {
            case .keNoCookies:
                response.cookies = []
            case .keWarningRecord(let code):
                response.warnings = [code]
            case .keServerNegotiation(let server, let port):
                if let server { response.server = server }
                if let port { response.port = port }
            case .keErrorRecord(let code):
                return NTSKERecord(critical: true, type: .error, value: code).encoded()
                    + NTSKERecord(critical: true, type: .endOfMessage).encoded()
            default:
                break
            }
            var records = try response.records()
            switch behaviour {
            case .keCriticalUnknownRecord:
                records.insert(try NTSKERecord(critical: true, type: unknownType, body: [0, 0]), at: 2)
            case .keOversizedResponse:
                let filler = try NTSKERecord(
                    critical: false, type: unknownType, body: Array(repeating: 0xA5, count: fillerLength))
                records.insert(contentsOf: [filler, filler], at: 2)
            default:
                break
            }
            var bytes = records.flatMap { $0.encoded() }
            if behaviour == .keTruncatedRecords {
                // Up to the middle of the first New Cookie record: its header and half its body.
                let cut = records.prefix { $0.type != .newCookie }.map { $0.encoded().count }.reduce(0, +)
                let cookieLength = cookies.first.map(\.count) ?? 0
                bytes = Array(bytes.prefix(cut + NTSKERecord.headerSize + cookieLength / 2))
            }
            return bytes
        }

        /// The request's outcome: nil when it asks for NTPv4 and AEAD 15 and ends properly, else the
        /// Error code to answer with (0 unrecognized critical record, 1 bad request).
        static func errorCode(forRequest records: [NTSKERecord]) -> UInt16? {
            if records.contains(where: { $0.isCritical && !$0.type.isKnown }) { return 0 }
            let protocols = records.filter { $0.type == .nextProtocol }
            let algorithms = records.filter { $0.type == .aeadAlgorithm }
            guard protocols.count == 1, algorithms.count == 1,
                ids(protocols[0].body).contains(NTSKEConstants.ntpv4Protocol),
                ids(algorithms[0].body).contains(NTSKEConstants.aesSIVCMAC256)
            else { return 1 }
            return nil
        }

        /// The big-endian 16-bit values in `body`.
        private static func ids(_ body: [UInt8]) -> [UInt16] {
            stride(from: 0, to: body.count - 1, by: 2).map { UInt16(body[$0]) << 8 | UInt16(body[$0 + 1]) }
        }
    }
}
