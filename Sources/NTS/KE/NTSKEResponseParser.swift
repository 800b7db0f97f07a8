/// An incremental, total and bounded parser of an NTS-KE response (RFC 8915 §4) as a client reads
/// it: feed every chunk the TLS connection yields to ``consume(_:)``; records may be split across
/// chunks anywhere.
///
/// Rules (RFC 8915 §4.1): an unknown record with the critical bit is an error, without it is
/// skipped; an Error record ends the exchange with its code; Warning codes are surfaced; Next
/// Protocol must select NTPv4 and AEAD must select the algorithm offered (15), each exactly once;
/// server and port at most once; at least one cookie; End of Message terminates and nothing may
/// follow it. The critical bit of a *known* record is not checked: it only tells a receiver what to
/// do with a type it does not understand.
package struct NTSKEResponseParser: Sendable {
    /// The default cap on the bytes of a whole response: 64 KiB.
    package static let defaultMaximumSize = 65_536

    /// What one call to ``consume(_:)`` achieved.
    package enum Progress: Hashable, Sendable {
        /// The response is not complete yet: read more bytes.
        case needMoreBytes
        /// End of Message arrived: the response.
        case complete(NTSKEResponse)
    }

    /// Where the parser is: still reading, done, or failed for good.
    private enum State: Sendable {
        /// End of Message has not arrived.
        case reading
        /// End of Message arrived; the response.
        case complete(NTSKEResponse)
        /// A violation; every later call throws it again.
        case failed(NTSError)
    }

    /// The cap on the bytes of the whole response.
    package let maximumSize: Int
    /// Where the parser is.
    private var state = State.reading
    /// Received bytes not yet parsed: at most one incomplete record.
    private var pending: [UInt8] = []
    /// All bytes received so far, checked against ``maximumSize``.
    private var received = 0
    /// The Next Protocol ID, once its record arrived.
    private var nextProtocol: UInt16?
    /// The AEAD algorithm ID, once its record arrived.
    private var aead: UInt16?
    /// The cookies kept so far (at most ``NTSKEResponse/maximumCookies``).
    private var cookies: [[UInt8]] = []
    /// The NTPv4 server, once its record arrived.
    private var server: String?
    /// The NTPv4 port, once its record arrived.
    private var port: UInt16?
    /// The Warning codes so far.
    private var warnings: [UInt16] = []

    /// Creates a parser that refuses responses longer than `maximumSize` bytes.
    package init(maximumSize: Int = defaultMaximumSize) {
        self.maximumSize = max(0, maximumSize)
    }

    /// Takes the next bytes of the stream. Returns ``Progress/complete(_:)`` once End of Message
    /// has been parsed; throws on the first violation (and again on every later call).
    package mutating func consume(_ bytes: some Collection<UInt8>) throws(NTSError) -> Progress {
        switch state {
        case .failed(let error):
            throw error
        case .complete(let response):
            guard bytes.isEmpty else {
                throw fail(NTSError(.bytesAfterEnd, "\(bytes.count) bytes after End of Message"))
            }
            return .complete(response)
        case .reading:
            break
        }
        guard bytes.count <= maximumSize - received else {
            throw fail(NTSError(.responseTooLarge, "response exceeds \(maximumSize) bytes"))
        }
        received += bytes.count
        pending.append(contentsOf: bytes)
        do {
            return try parsePending()
        } catch {
            throw fail(error)
        }
    }

    /// The connection closed: returns the response when End of Message was parsed, else throws
    /// ``NTSError/Code/truncated``.
    package mutating func finish() throws(NTSError) -> NTSKEResponse {
        switch state {
        case .failed(let error): throw error
        case .complete(let response): return response
        case .reading:
            throw fail(
                NTSError(.truncated, "the stream ended after \(received) bytes, before End of Message"))
        }
    }

    /// Enters the failed state with `error` and returns it.
    private mutating func fail(_ error: NTSError) -> NTSError {
        state = .failed(error)
        pending = []
        return error
    }

    /// Parses every complete record in `pending`.
    private mutating func parsePending() throws(NTSError) -> Progress {
        var offset = 0
        defer { pending.removeFirst(min(offset, pending.count)) }
        while let word = WireBytes.uint16(pending, at: offset),
            let length = WireBytes.uint16(pending, at: offset + 2)
        {
            let bodyStart = offset + NTSKERecord.headerSize
            guard Int(length) <= pending.count - bodyStart else { break }
            let body = Array(pending[bodyStart..<(bodyStart + Int(length))])
            offset = bodyStart + Int(length)
            let type = NTSKERecordType(rawValue: word)
            if type == .endOfMessage {
                guard body.isEmpty else {
                    throw NTSError(.malformedRecord, "End of Message with a \(body.count)-byte body")
                }
                // The response is judged first, so the outcome does not depend on how the bytes
                // after End of Message were split into reads.
                let response = try finished()
                guard offset == pending.count else {
                    throw NTSError(.bytesAfterEnd, "\(pending.count - offset) bytes after End of Message")
                }
                state = .complete(response)
                return .complete(response)
            }
            try apply(type: type, critical: word & 0x8000 != 0, body: body)
        }
        return .needMoreBytes
    }

    /// The response once End of Message arrived: the mandatory parts must be there.
    private func finished() throws(NTSError) -> NTSKEResponse {
        guard let nextProtocol else { throw NTSError(.noNTPv4, "no Next Protocol Negotiation record") }
        guard let aead else { throw NTSError(.unsupportedAEAD, "no AEAD Algorithm Negotiation record") }
        guard !cookies.isEmpty else { throw NTSError(.noCookies, "no New Cookie for NTPv4 record") }
        return NTSKEResponse(
            nextProtocol: nextProtocol, aead: aead, cookies: cookies, server: server, port: port,
            warnings: warnings)
    }

    /// Records one record other than End of Message.
    private mutating func apply(type: NTSKERecordType, critical: Bool, body: [UInt8]) throws(NTSError) {
        switch type {
        case .nextProtocol:
            guard nextProtocol == nil else { throw NTSError(.duplicateRecord, "two Next Protocol records") }
            guard !body.isEmpty else { throw NTSError(.noNTPv4, "the server accepts none of our protocols") }
            guard body.count == 2, let id = WireBytes.uint16(body, at: 0) else {
                throw NTSError(
                    .malformedRecord, "Next Protocol body of \(body.count) bytes; a server names one ID")
            }
            guard id == NTSKEConstants.ntpv4Protocol else {
                throw NTSError(.noNTPv4, "next protocol \(id), not NTPv4 (0)")
            }
            nextProtocol = id
        case .error:
            guard body.count == 2, let code = WireBytes.uint16(body, at: 0) else {
                throw NTSError(.malformedRecord, "Error record body of \(body.count) bytes")
            }
            throw NTSError(
                .serverError, "the server sent Error \(code) (\(Self.errorName(code)))", serverCode: code)
        case .warning:
            guard body.count == 2, let code = WireBytes.uint16(body, at: 0) else {
                throw NTSError(.malformedRecord, "Warning record body of \(body.count) bytes")
            }
            warnings.append(code)
        case .aeadAlgorithm:
            guard aead == nil else { throw NTSError(.duplicateRecord, "two AEAD Algorithm records") }
            guard !body.isEmpty else {
                throw NTSError(.unsupportedAEAD, "the server accepts none of our AEAD algorithms")
            }
            guard body.count == 2, let id = WireBytes.uint16(body, at: 0) else {
                throw NTSError(
                    .malformedRecord, "AEAD body of \(body.count) bytes; a server names one algorithm")
            }
            guard id == NTSKEConstants.aesSIVCMAC256 else {
                throw NTSError(
                    .unsupportedAEAD, "AEAD algorithm \(id), we offered only 15 (AES-SIV-CMAC-256)")
            }
            aead = id
        case .newCookie:
            guard (1...NTSKEResponse.maximumCookieLength).contains(body.count) else {
                throw NTSError(
                    .malformedRecord, "cookie of \(body.count) bytes (1–\(NTSKEResponse.maximumCookieLength))"
                )
            }
            if cookies.count < NTSKEResponse.maximumCookies { cookies.append(body) }
        case .ntpServer:
            guard server == nil else {
                throw NTSError(.duplicateRecord, "two NTPv4 Server Negotiation records")
            }
            guard let name = NTSServerName.parse(body) else {
                throw NTSError(
                    .invalidServer, "NTPv4 server of \(body.count) bytes is not printable ASCII of 1–255")
            }
            server = name
        case .ntpPort:
            guard port == nil else { throw NTSError(.duplicateRecord, "two NTPv4 Port Negotiation records") }
            guard body.count == 2, let value = WireBytes.uint16(body, at: 0), value != 0 else {
                throw NTSError(.malformedRecord, "NTPv4 port body of \(body.count) bytes or port 0")
            }
            port = value
        default:
            guard !critical else {
                throw NTSError(.unknownCriticalRecord, "critical record of unknown type \(type.rawValue)")
            }
        }
    }

    /// The RFC 8915 §4.1.3 name of an Error code.
    package static func errorName(_ code: UInt16) -> String {
        switch code {
        case 0: "unrecognized critical record"
        case 1: "bad request"
        case 2: "internal server error"
        default: "unknown error code"
        }
    }
}
