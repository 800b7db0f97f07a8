import SNTP
import TimeValues

/// The bytes the loopback HTTP time server answers one request with, built from its configuration
/// and its (offset) clock reading at the moment of stamping.
struct HTTPTimeServerResponse {
    var statusCode: Int
    var head: [UInt8]
    var body: [UInt8]

    init(method: String, configuration: HTTPTimeServer.Configuration, serverTime: UnixTime) {
        let misbehaviour = configuration.misbehaviour
        let isHead = method == "HEAD"
        let refusesHead = misbehaviour == .headNotAllowed || misbehaviour?.isTricklingBody == true
        if misbehaviour == .internalServerError {
            statusCode = 500
        } else if case .redirect = misbehaviour {
            statusCode = 301
        } else if isHead && refusesHead {
            statusCode = 405
        } else if method != "HEAD" && method != "GET" {
            statusCode = 405
        } else {
            statusCode = 200
        }
        var content = Array((ISO8601.format(serverTime, fractionDigits: 3) + "\n").utf8)
        if case .headNotAllowedTricklingBody(let bytes, _) = misbehaviour {
            content = [UInt8](repeating: UInt8(ascii: "x"), count: max(0, bytes))
        }
        var lines = ["HTTP/1.1 \(statusCode) \(Self.reasonPhrase(statusCode))"]
        if case .statusLine(let text) = misbehaviour { lines = [text] }
        if case .malformedDate(let text) = misbehaviour {
            lines.append("Date: \(text)")
        } else if configuration.sendsDate {
            lines.append("Date: \(configuration.dateStyle.format(serverTime))")
        }
        if let name = configuration.timestampHeaderName {
            lines.append("\(name): \(Self.timestamp(serverTime, configuration))")
        }
        if case .redirect(let location) = misbehaviour {
            lines.append("Location: \(location)")
        }
        if case .cachedAge(let seconds) = misbehaviour {
            lines.append("Age: \(seconds)")
        }
        if case .cacheable(let maxAge) = misbehaviour {
            lines.append("Cache-Control: public, max-age=\(maxAge)")
        }
        if statusCode == 405 {
            lines.append(refusesHead ? "Allow: GET" : "Allow: GET, HEAD")
        }
        if case .oversizedHeaders(let bytes) = misbehaviour {
            var added = 0
            var index = 0
            while added < bytes {
                let name = "X-Filler-\(index): "
                let filler = String(repeating: "x", count: max(1, min(1_000, bytes - added) - name.count - 2))
                lines.append(name + filler)
                added += name.count + filler.count + 2
                index += 1
            }
        }
        lines.append("Content-Type: text/plain; charset=utf-8")
        lines.append("Content-Length: \(content.count)")
        lines.append("Cache-Control: no-store")
        lines.append("Connection: close")
        head = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        if misbehaviour == .earlyHints {
            head = Array("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n".utf8) + head
        }
        body = isHead ? [] : content
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 103: return "Early Hints"
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 405: return "Method Not Allowed"
        case 500: return "Internal Server Error"
        default: return "Status"
        }
    }
}

extension HTTPTimeServerMisbehaviour {
    /// Whether this is ``headNotAllowedTricklingBody(bytes:pause:)``.
    var isTricklingBody: Bool {
        if case .headNotAllowedTricklingBody = self { return true }
        return false
    }
}

extension HTTPTimeServerResponse {
    /// `time` written in whole units of the configuration's timestamp step (seconds when it is a
    /// second or more, else milliseconds), truncated, rounded or ceiled as configured.
    static func timestamp(_ time: UnixTime, _ configuration: HTTPTimeServer.Configuration) -> Int64 {
        let step = max(configuration.timestampStep, .milliseconds(1))
        let units = time.sinceEpoch / step
        let whole: Double
        switch configuration.timestampRounding {
        case .truncating: whole = units.rounded(.down)
        case .rounding: whole = units.rounded(.toNearestOrAwayFromZero)
        case .ceiling: whole = units.rounded(.up)
        }
        let multiple = step >= .seconds(1) ? step / .seconds(1) : step / .milliseconds(1)
        return Int64(whole * multiple)
    }
}
