#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TimeValues

/// Where an `http://` or `https://` URL points and what ``HTTPHeadClient`` sends there: the host to
/// resolve (and, over TLS, the name the certificate must carry), the port, whether the stream is
/// TLS, the proxy the connection goes through, and the request head (origin-form target, or
/// absolute-form to a proxy for `http://`; `Host`, no-cache headers, `Connection: close`).
struct HTTPRequestTarget: Hashable, Sendable {
    /// The host to resolve: a name or an IP literal, without brackets, percent-decoded (so an IPv6
    /// zone ID reads `fe80::1%eth0`).
    let host: String
    /// The TCP port: the URL's, or 80 (`http`) or 443 (`https`).
    let port: UInt16
    /// Whether the URL is `https`: the request then goes over TLS, with `host` as the server name
    /// (SNI for a name, checked against the certificate's names or addresses).
    let isSecure: Bool
    /// The `Host` header value: the host as written in the URL (IPv6 literals in brackets), with the
    /// port when the URL gives one.
    let hostHeader: String
    /// The request target: the percent-encoded path (`/` when empty) and query.
    let target: String
    /// The host and port as a `CONNECT` request names them: `host:port`, IPv6 in brackets.
    let authority: String
    /// The proxy the connection goes through, nil for a direct one: for `https://` a `CONNECT`
    /// tunnel to ``authority``, for `http://` requests in absolute form.
    var proxy: HTTPProxy?

    /// Reads an `http` or `https` URL (any other scheme is read as `http`; the caller checks it).
    /// - Throws: ``HTTPTimeError/Code/transport`` when the URL has no host,
    ///   a port outside 1…65535, or characters that cannot appear in a request head.
    init(url: URL) throws(HTTPTimeError) {
        let shown = url.absoluteString
        let isSecure = url.scheme?.lowercased() == "https"
        guard let encodedHost = url.host(percentEncoded: true), !encodedHost.isEmpty,
            let host = url.host(percentEncoded: false), !host.isEmpty
        else {
            throw Self.badURL("\(shown) has no host")
        }
        let port = url.port ?? (isSecure ? 443 : 80)
        guard (1...65_535).contains(port) else {
            throw Self.badURL("\(shown) has port \(port), outside 1…65535")
        }
        let bracketed = encodedHost.contains(":") ? "[\(encodedHost)]" : encodedHost
        let hostHeader = url.port.map { "\(bracketed):\($0)" } ?? bracketed
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard target.hasPrefix("/"), Self.isVisibleASCII(target), Self.isVisibleASCII(hostHeader),
            !host.utf8.contains(0)
        else {
            throw Self.badURL("\(shown) has characters that cannot be sent in a request")
        }
        self.host = host
        self.port = UInt16(port)
        self.isSecure = isSecure
        self.hostHeader = hostHeader
        self.target = target
        self.authority = "\(bracketed):\(port)"
    }

    /// Where the TCP connection goes: the proxy, or the URL's host and port.
    var connectionHost: String { proxy?.host ?? host }
    /// The port of ``connectionHost``.
    var connectionPort: UInt16 { proxy?.port ?? port }

    /// The request head for `method`, ending with the empty line; there is never a body. To an
    /// `http://` proxy, the target is in absolute form and the proxy's credentials go along; in a
    /// `CONNECT` tunnel the request is the origin's own, credentials never in it.
    func head(method: HTTPRequestRecord.Method) -> [UInt8] {
        let toProxy = proxy != nil && !isSecure
        let requestTarget = toProxy ? "http://\(hostHeader)\(target)" : target
        var lines = [
            "\(method.rawValue) \(requestTarget) HTTP/1.1",
            "Host: \(hostHeader)",
            "Cache-Control: no-cache",
            "Pragma: no-cache",
            "User-Agent: NetworkClock",
            "Connection: close",
        ]
        if toProxy, let line = proxy?.authorizationLine { lines.append(line) }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// The `CONNECT` request that opens a tunnel to ``authority`` through the proxy (RFC 9110
    /// §9.3.6: the target in authority form, `Host` the same).
    func connectHead() -> [UInt8] {
        var lines = [
            "CONNECT \(authority) HTTP/1.1", "Host: \(authority)", "User-Agent: NetworkClock",
        ]
        if let line = proxy?.authorizationLine { lines.append(line) }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Whether every character is printable ASCII other than space (0x21…0x7E): nothing that could
    /// end a header line or the request line early.
    private static func isVisibleASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    private static func badURL(_ reason: String) -> HTTPTimeError {
        HTTPTimeError(.transport, reason)
    }
}
