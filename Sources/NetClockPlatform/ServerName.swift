/// A server as a user writes it: `host`, `host:port`, `[v6addr]` or `[v6addr]:port`; either a
/// plain NTP server or an NTS-KE server (``nts(_:port:)``) whose time is authenticated. One
/// grammar for every protocol (``parse(_:)``); SNTP's `init(parsing:)` throws its reason as an
/// `SNTPError`.
public struct ServerName: Hashable, Sendable, CustomStringConvertible {
    /// The host name or numeric address (IPv6 without brackets).
    public var host: String
    /// The port, when one was given: the NTP port, or for an NTS server the NTS-KE port.
    public var port: UInt16?
    /// Whether this names an NTS-KE server (RFC 8915): time from it is authenticated, and the NTP
    /// host and port come from its key-exchange response. `SNTPClient` queries plain servers only;
    /// `NetworkClock` queries both.
    public var usesNTS: Bool

    /// The NTP port, 123, used when a name gives none.
    public static let defaultPort: UInt16 = 123
    /// The NTS-KE port, 4460 (RFC 8915 §4), used when an NTS server's name gives none.
    public static let defaultNTSKEPort: UInt16 = 4460

    /// Creates a plain NTP server name from its parts.
    ///
    /// `host` is a name or an address alone: `ServerName(host: "127.0.0.1", port: 123)`. Text such
    /// as `127.0.0.1:123` is read by ``init(parsing:)``; given here as a host, a query refuses it
    /// (`a host holds no ':port'`) before any lookup.
    public init(host: String, port: UInt16? = nil) {
        self.host = host
        self.port = port
        self.usesNTS = false
    }

    /// An NTS-KE server (RFC 8915): `host` on `port` (default 4460) gives the keys and cookies,
    /// then names the NTP server to query (by default the same host on port 123).
    ///
    /// ```swift
    /// let servers: [ServerName] = [.nts("time.cloudflare.com"), .nts("nts.netnod.se")]
    /// ```
    public static func nts(_ host: String, port: UInt16? = nil) -> ServerName {
        var name = ServerName(host: host, port: port)
        name.usesNTS = true
        return name
    }

    /// The port to connect to: the given one, else 123 (or 4460 for an NTS-KE server).
    public var effectivePort: UInt16 {
        port ?? (usesNTS ? Self.defaultNTSKEPort : Self.defaultPort)
    }

    /// `host`, `host:port` or `[v6]:port` (for an NTS-KE server too: reports say NTS apart).
    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        guard let port else { return shown }
        return "\(shown):\(port)"
    }

    /// Why text is not a server name, for people.
    package struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong, quoting the text.
        package var reason: String

        /// The reason.
        package var description: String { reason }
    }

    /// Parses `host`, `host:port`, `[v6addr]`, `[v6addr]:port`, or a bare IPv6 address (two or more
    /// colons, no port): the one grammar of server names, whichever protocol asks.
    package static func parse(_ text: String) -> Result<ServerName, Invalid> {
        let malformed = Invalid(
            reason: "invalid server '\(text)' (expected host, host:port or [v6addr]:port)")
        guard !text.isEmpty else { return .failure(Invalid(reason: "empty server name")) }
        guard !text.contains(where: { $0.isWhitespace }) else { return .failure(malformed) }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return .failure(malformed) }
            let host = String(text[text.index(after: text.startIndex)..<close])
            guard !host.isEmpty else { return .failure(malformed) }
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return .success(ServerName(host: host)) }
            guard rest.hasPrefix(":") else { return .failure(malformed) }
            return port(String(rest.dropFirst()), in: text).map { ServerName(host: host, port: $0) }
        }
        let colons = text.filter { $0 == ":" }.count
        if colons >= 2 { return .success(ServerName(host: text)) }
        if colons == 1, let colon = text.firstIndex(of: ":") {
            let host = String(text[..<colon])
            guard !host.isEmpty else { return .failure(malformed) }
            return port(String(text[text.index(after: colon)...]), in: text).map {
                ServerName(host: host, port: $0)
            }
        }
        return .success(ServerName(host: text))
    }

    private static func port(_ text: String, in whole: String) -> Result<UInt16, Invalid> {
        guard let value = UInt16(text), value > 0 else {
            return .failure(Invalid(reason: "invalid port in '\(whole)' (expected 1-65535)"))
        }
        return .success(value)
    }
}
