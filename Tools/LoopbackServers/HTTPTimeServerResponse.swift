import SNTP

/// The bytes the loopback HTTP time server answers one request with, built from its configuration
/// and its (offset) clock reading at the moment of stamping.
struct HTTPTimeServerResponse {
    var statusCode: Int
    var head: [UInt8]
    var body: [UInt8]

    init(method: String, configuration: HTTPTimeServer.Configuration, serverTime: UnixTime) {
        let misbehaviour = configuration.misbehaviour
        let isHead = method == "HEAD"
        if misbehaviour == .internalServerError {
            statusCode = 500
        } else if isHead && misbehaviour == .headNotAllowed {
            statusCode = 405
        } else if method != "HEAD" && method != "GET" {
            statusCode = 405
        } else {
            statusCode = 200
        }
        let content = Array((ISO8601.format(serverTime, fractionDigits: 3) + "\n").utf8)
        var lines = ["HTTP/1.1 \(statusCode) \(Self.reasonPhrase(statusCode))"]
        if case .malformedDate(let text) = misbehaviour {
            lines.append("Date: \(text)")
        } else if configuration.sendsDate {
            lines.append("Date: \(configuration.dateStyle.format(serverTime))")
        }
        if let name = configuration.timestampHeaderName {
            let milliseconds = serverTime.seconds * 1000 + serverTime.nanoseconds / 1_000_000
            lines.append("\(name): \(milliseconds)")
        }
        if case .cachedAge(let seconds) = misbehaviour {
            lines.append("Age: \(seconds)")
        }
        if statusCode == 405 {
            lines.append(misbehaviour == .headNotAllowed ? "Allow: GET" : "Allow: GET, HEAD")
        }
        lines.append("Content-Type: text/plain; charset=utf-8")
        lines.append("Content-Length: \(content.count)")
        lines.append("Cache-Control: no-store")
        lines.append("Connection: close")
        head = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        body = isHead ? [] : content
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 405: return "Method Not Allowed"
        case 500: return "Internal Server Error"
        default: return "Status"
        }
    }
}
