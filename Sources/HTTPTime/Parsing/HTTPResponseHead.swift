import NetClockPlatform
import TimeValues

/// The head of an HTTP/1.x response: the status line and the header fields (RFC 9112 §4, §5).
///
/// ``init(parsing:)`` is pure and total: it accepts any bytes, never traps, and either returns a
/// head or throws an ``HTTPResponseHeadError``, so it can be fed hostile input (and fuzzed).
/// ``endOfHead(in:searchingFrom:)`` finds where a head ends in a stream of received bytes. Where the
/// grammar is strict and where lenient: the ThreatModel article, "A malicious or broken server".
package struct HTTPResponseHead: Hashable, Sendable {
    /// One header field as received.
    package struct Field: Hashable, Sendable {
        /// The field name as sent (compare case-insensitively).
        package var name: String
        /// The field value without surrounding whitespace, folded lines joined with one space.
        package var value: String

        /// Creates a field.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The protocol version of the status line, e.g. `HTTP/1.1` (empty when not known, as for a
    /// response converted from URLSession).
    package var version: String
    /// The status code, 100…599.
    package var statusCode: Int
    /// The reason phrase, possibly empty.
    package var reasonPhrase: String
    /// The header fields in the order received; a name may occur more than once.
    package var fields: [Field]

    /// Creates a head from its parts.
    package init(statusCode: Int, reasonPhrase: String = "", version: String = "", fields: [Field] = []) {
        self.version = version
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.fields = fields
    }

    /// Every value of the fields named `name` (ASCII case-insensitive), in the order received.
    package func values(forField name: String) -> [String] {
        let wanted = Self.asciiLowercased(name)
        return fields.filter { Self.asciiLowercased($0.name) == wanted }.map(\.value)
    }

    /// `text` with only A–Z lowered: field names are ASCII tokens, and Unicode case folding would
    /// let, say, the Kelvin sign match `k`.
    private static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// The value of the field named `name` (ASCII case-insensitive), nil when absent. A field sent
    /// more than once gives its distinct values joined with `", "` (RFC 9110 §5.3), so a singleton
    /// field such as `Date` sent twice with different values is read as their combination (which
    /// almost never parses) instead of one of them being picked arbitrarily; repeating the same
    /// value is harmless.
    package func value(forField name: String) -> String? {
        var distinct: [String] = []
        for value in values(forField: name) where !distinct.contains(value) { distinct.append(value) }
        return distinct.isEmpty ? nil : distinct.joined(separator: ", ")
    }

    /// The index just past the empty line that ends a response head in `bytes` (CRLF CRLF, or with
    /// bare LFs), or nil when the head is not complete yet.
    ///
    /// To search a growing buffer incrementally, pass the previous length minus 2 as `start`.
    package static func endOfHead(in bytes: [UInt8], searchingFrom start: Int = 0) -> Int? {
        var index = max(0, start)
        while index < bytes.count {
            if bytes[index] == lineFeed {
                let next = index + 1
                if next < bytes.count && bytes[next] == lineFeed { return next + 1 }
                if next + 1 < bytes.count && bytes[next] == carriageReturn && bytes[next + 1] == lineFeed {
                    return next + 2
                }
            }
            index += 1
        }
        return nil
    }

    /// Parses a response head: the status line and the field lines, up to the first empty line (or
    /// the end of `bytes` when there is none; anything after the empty line is ignored).
    package init(parsing bytes: some Collection<UInt8>) throws(HTTPResponseHeadError) {
        let lines = try Self.lines(of: Array(bytes))
        guard let statusLine = lines.first else {
            throw HTTPResponseHeadError(.empty, "there is no status line")
        }
        let status = try Self.parseStatusLine(statusLine)
        var fields: [Field] = []
        for line in lines.dropFirst() {
            if let first = line.first, first == Self.space || first == Self.tab {
                guard let last = fields.indices.last else {
                    throw HTTPResponseHeadError(
                        .invalidFieldLine, "the first header line starts with whitespace")
                }
                let continuation = try Self.fieldValue(line, of: fields[last].name)
                if !continuation.isEmpty {
                    fields[last].value += (fields[last].value.isEmpty ? "" : " ") + continuation
                }
                continue
            }
            guard let colon = line.firstIndex(of: Self.colon) else {
                throw HTTPResponseHeadError(
                    .invalidFieldLine, "header line '\(Self.shown(line))' has no colon")
            }
            let nameBytes = line[..<colon]
            guard !nameBytes.isEmpty, nameBytes.allSatisfy(Self.isTokenCharacter) else {
                throw HTTPResponseHeadError(
                    .invalidFieldName, "'\(Self.shown(nameBytes))' is not a valid field name")
            }
            let name = Self.latin1(nameBytes)
            let value = try Self.fieldValue(line[(colon + 1)...], of: name)
            fields.append(Field(name: name, value: value))
        }
        self.init(
            statusCode: status.code, reasonPhrase: status.reason, version: status.version, fields: fields)
    }

    // MARK: Parsing steps

    /// The lines up to the first empty one, each without its line end.
    private static func lines(of data: [UInt8]) throws(HTTPResponseHeadError) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        while start < data.count {
            let end = data[start...].firstIndex(of: lineFeed) ?? data.count
            var line = data[start..<end]
            if line.last == carriageReturn { line = line.dropLast() }
            if line.contains(carriageReturn) {
                throw HTTPResponseHeadError(
                    .bareCarriageReturn, "line \(lines.count + 1) contains a CR that does not end it")
            }
            if line.isEmpty { break }
            lines.append(line)
            start = end + 1
        }
        return lines
    }

    private static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPResponseHeadError)
        -> (version: String, code: Int, reason: String)
    {
        let bytes = Array(line)
        guard bytes.count >= 8, bytes[0..<5].elementsEqual("HTTP/".utf8), isDigit(bytes[5]),
            bytes[6] == UInt8(ascii: "."), isDigit(bytes[7])
        else {
            throw HTTPResponseHeadError(
                .invalidStatusLine, "'\(shown(line))' does not start with HTTP/<digit>.<digit>")
        }
        let version = latin1(bytes[0..<8])
        guard bytes[5] == UInt8(ascii: "1") else {
            throw HTTPResponseHeadError(.unsupportedVersion, "\(version) is not HTTP/1.x")
        }
        guard bytes.count > 8, bytes[8] == space else {
            throw HTTPResponseHeadError(.invalidStatusLine, "no status code after \(version)")
        }
        let digits = bytes[9...].prefix(while: isDigit)
        guard digits.count == 3 else {
            let shownCode = shown(bytes[9...].prefix { $0 != space })
            throw HTTPResponseHeadError(.invalidStatusCode, "status code '\(shownCode)' is not three digits")
        }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard (100...599).contains(code) else {
            throw HTTPResponseHeadError(.invalidStatusCode, "status code \(code) is outside 100…599")
        }
        let rest = bytes[12...]
        guard let separator = rest.first else { return (version, code, "") }
        guard separator == space else {
            throw HTTPResponseHeadError(.invalidStatusLine, "no space after status code \(code)")
        }
        let reason = rest.dropFirst()
        guard reason.allSatisfy(isValueCharacter) else {
            throw HTTPResponseHeadError(
                .invalidReasonPhrase, "the reason phrase contains a control character")
        }
        return (version, code, latin1(reason))
    }

    /// A field value (or folded continuation) without surrounding whitespace, checked for control
    /// characters.
    private static func fieldValue(_ raw: ArraySlice<UInt8>, of name: String) throws(HTTPResponseHeadError)
        -> String
    {
        let isWhitespace = { (byte: UInt8) in byte == space || byte == tab }
        guard let first = raw.firstIndex(where: { !isWhitespace($0) }),
            let last = raw.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        let value = raw[first...last]
        guard value.allSatisfy(isValueCharacter) else {
            throw HTTPResponseHeadError(
                .invalidFieldValue, "the value of \(name) contains a control character")
        }
        return latin1(value)
    }

    // MARK: Characters

    private static let lineFeed: UInt8 = 0x0A
    private static let carriageReturn: UInt8 = 0x0D
    private static let space: UInt8 = 0x20
    private static let tab: UInt8 = 0x09
    private static let colon: UInt8 = 0x3A

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `tchar` of RFC 9110 §5.6.2.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// HTAB, SP, VCHAR and obs-text: everything but the other control characters and DEL.
    private static func isValueCharacter(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// ISO-8859-1: every byte becomes the code point of the same number, so nothing is lost.
    private static func latin1(_ bytes: some Sequence<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return String(scalars)
    }

    /// At most 40 bytes of `bytes`, with control characters shown as `?`, for error messages.
    private static func shown(_ bytes: some Collection<UInt8>) -> String {
        let prefix = bytes.prefix(40).map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }
        return latin1(prefix) + (bytes.count > 40 ? "…" : "")
    }
}

/// Why bytes received from a server are not a valid HTTP/1.x response head (RFC 9112 §4 and §5):
/// a ``HTTPResponseHeadErrorCode`` and a reason.
///
/// Compare ``CodedError/code`` in code and tests; the reason is for people and may change wording.
package typealias HTTPResponseHeadError = CodedError<HTTPResponseHeadErrorCode>

/// What kind of problem an ``HTTPResponseHeadError`` is.
package enum HTTPResponseHeadErrorCode: String, ErrorCode, CaseIterable {
    /// There is no status line at all.
    case empty = "empty"
    /// The status line is not `HTTP/x.y SP 3DIGIT [SP reason]`.
    case invalidStatusLine = "invalid_status_line"
    /// The HTTP version is not 1.x.
    case unsupportedVersion = "unsupported_version"
    /// The status code is not three digits between 100 and 599.
    case invalidStatusCode = "invalid_status_code"
    /// The reason phrase contains a control character.
    case invalidReasonPhrase = "invalid_reason_phrase"
    /// A header line has no colon, or the first one starts with whitespace.
    case invalidFieldLine = "invalid_field_line"
    /// A field name is empty, or contains a character that a token may not (whitespace
    /// before the colon included).
    case invalidFieldName = "invalid_field_name"
    /// A field value contains a control character (NUL included).
    case invalidFieldValue = "invalid_field_value"
    /// A carriage return that does not end a line.
    case bareCarriageReturn = "bare_carriage_return"
}
