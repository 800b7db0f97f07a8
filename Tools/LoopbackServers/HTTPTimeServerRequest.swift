import SNTP
import TimeValues

/// One request the loopback HTTP time server received, as logged for tests' assertions.
package struct HTTPTimeServerRequest: Hashable, Sendable {
    /// One header field as received.
    package struct Field: Hashable, Sendable {
        /// The field name as sent.
        package var name: String
        /// The field value, without surrounding whitespace.
        package var value: String
    }

    /// The request method, e.g. `HEAD`.
    package var method: String
    /// The request target, e.g. `/`.
    package var path: String
    /// The header fields in the order received.
    package var fields: [Field]
    /// `CLOCK_REALTIME` when the request head had been read (not offset by the server's error).
    package var receivedAt: UnixTime
    /// The status the server answered (or began to answer) with.
    package var statusCode: Int

    /// The value of the first field named `name` (case-insensitive), if any.
    package func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    /// Parses a request head (request line and fields, CRLF-separated); nil when the request line is
    /// not `METHOD SP TARGET SP VERSION`.
    static func parse(head: [UInt8], receivedAt: UnixTime) -> HTTPTimeServerRequest? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true).makeIterator()
        guard let requestLine = lines.next() else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else { return nil }
        var fields: [Field] = []
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            fields.append(Field(name: String(line[..<colon]), value: value))
        }
        return HTTPTimeServerRequest(
            method: String(parts[0]), path: String(parts[1]), fields: fields, receivedAt: receivedAt,
            statusCode: 0)
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
