#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform

/// An `http://` forward proxy: where to connect, and the credentials it may ask for.
///
/// The credentials are only ever sent, as a Basic `Proxy-Authorization` header: ``description``,
/// the mirror and every error name the proxy by host and port alone.
package struct HTTPProxy: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The proxy's host: a name or an IP literal, without brackets.
    package let host: String
    /// The proxy's TCP port.
    package let port: UInt16
    /// The value of the `Proxy-Authorization` header (`Basic` and base64 of `user:password`), nil
    /// without credentials.
    let authorization: String?

    /// The port a proxy URL without one gets, as curl assumes.
    package static let defaultPort: UInt16 = 1080

    /// Reads a proxy as curl does: `[http://][user[:password]@]host[:port]`, with percent-encoded
    /// credentials; nil with the reason for anything else (another scheme, no host, a bad port, a
    /// path other than `/`). The reason never contains the credentials.
    package static func parse(_ text: String) -> Result<HTTPProxy, ProxyURLError> {
        let trimmed = text.trimmingWhitespace()
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URL(string: withScheme) else {
            return .failure(ProxyURLError("the proxy is not a URL"))
        }
        let scheme = components.scheme?.lowercased() ?? ""
        guard scheme == "http" else {
            return .failure(
                ProxyURLError("proxy scheme '\(scheme)' is not supported (only http:// proxies are)"))
        }
        guard let host = components.host(percentEncoded: false), !host.isEmpty,
            host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2F })
        else {
            return .failure(ProxyURLError("the proxy URL has no usable host"))
        }
        let port = components.port ?? Int(defaultPort)
        guard (1...65_535).contains(port) else {
            return .failure(ProxyURLError("the proxy port \(port) is outside 1…65535"))
        }
        guard ["", "/"].contains(components.path(percentEncoded: true)),
            components.query(percentEncoded: true) == nil,
            components.fragment == nil
        else {
            return .failure(ProxyURLError("a proxy URL has no path or query"))
        }
        var authorization: String?
        if let user = components.user(percentEncoded: false) {
            let password = components.password(percentEncoded: false) ?? ""
            authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        return .success(HTTPProxy(host: host, port: UInt16(port), authorization: authorization))
    }

    init(host: String, port: UInt16, authorization: String?) {
        self.host = host
        self.port = port
        self.authorization = authorization
    }

    /// Whether the proxy URL carried credentials.
    package var hasCredentials: Bool { authorization != nil }

    /// `host:port` (IPv6 in brackets), never the credentials.
    package var description: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// The host and port only, so `dump` and debuggers show no credentials either.
    package var customMirror: Mirror {
        Mirror(self, children: ["host": host, "port": port, "hasCredentials": hasCredentials])
    }

    /// The header line sent to the proxy with every request, or nil without credentials.
    var authorizationLine: String? { authorization.map { "Proxy-Authorization: \($0)" } }
}

/// Why a proxy setting cannot be used (the text never holds credentials).
package struct ProxyURLError: Error, Hashable, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) { self.description = description }
}
