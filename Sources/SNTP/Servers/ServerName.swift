/// A server as a user writes it: `host`, `host:port`, `[v6addr]` or `[v6addr]:port`.
public struct ServerName: Hashable, Sendable, CustomStringConvertible {
    /// The host name or numeric address (IPv6 without brackets).
    public var host: String
    /// The port, when one was given.
    public var port: UInt16?

    /// The NTP port, 123, used when a name gives none.
    public static let defaultPort: UInt16 = 123

    /// Creates a server name from its parts.
    public init(host: String, port: UInt16? = nil) {
        self.host = host
        self.port = port
    }

    /// Parses `host`, `host:port`, `[v6addr]`, `[v6addr]:port`, or a bare IPv6 address (two or more
    /// colons, no port).
    /// - Throws: ``ServerNameError`` naming what is wrong.
    public init(parsing text: String) throws(ServerNameError) {
        guard !text.isEmpty else { throw .empty }
        guard !text.contains(where: { $0.isWhitespace }) else { throw .invalid(text) }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalid(text) }
            let host = String(text[text.index(after: text.startIndex)..<close])
            guard !host.isEmpty else { throw .invalid(text) }
            let rest = text[text.index(after: close)...]
            if rest.isEmpty {
                self.init(host: host)
                return
            }
            guard rest.hasPrefix(":") else { throw .invalid(text) }
            self.init(host: host, port: try Self.port(String(rest.dropFirst()), in: text))
            return
        }
        let colons = text.filter { $0 == ":" }.count
        if colons >= 2 {
            self.init(host: text)
            return
        }
        if colons == 1, let colon = text.firstIndex(of: ":") {
            let host = String(text[..<colon])
            guard !host.isEmpty else { throw .invalid(text) }
            self.init(host: host, port: try Self.port(String(text[text.index(after: colon)...]), in: text))
            return
        }
        self.init(host: text)
    }

    private static func port(_ text: String, in whole: String) throws(ServerNameError) -> UInt16 {
        guard let value = UInt16(text), value > 0 else { throw .invalidPort(whole) }
        return value
    }

    /// `host`, `host:port` or `[v6]:port`.
    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        guard let port else { return shown }
        return "\(shown):\(port)"
    }
}

/// Why a server name could not be parsed.
public enum ServerNameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name is empty.
    case empty
    /// The name is not of the form `host`, `host:port` or `[v6addr]:port`.
    case invalid(String)
    /// The port is not a number from 1 to 65535.
    case invalidPort(String)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .empty: return "empty server name"
        case .invalid(let text): return "invalid server '\(text)' (expected host, host:port or [v6addr]:port)"
        case .invalidPort(let text): return "invalid port in '\(text)' (expected 1-65535)"
        }
    }
}
