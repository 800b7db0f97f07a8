import HTTPTime

extension NetworkClock.HTTPOptions {
    /// Which proxy `http://` and `https://` time requests go through: the environment's, as curl
    /// reads it (the default), none, or one given as a URL.
    ///
    /// `https://` goes through a `CONNECT` tunnel, with TLS end to end with the origin; `http://`
    /// goes to the proxy in absolute form, and an answer from its cache is refused. Credentials in
    /// the URL are sent as Basic `Proxy-Authorization` and never shown: ``description`` and every
    /// error name the proxy by host and port alone. The Proxies article tells the rules in full.
    public struct Proxy: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
        private enum Setting: Hashable, Sendable {
            case environment
            case none
            case url(HTTPProxy)
        }

        private let setting: Setting

        private init(_ setting: Setting) { self.setting = setting }

        /// The environment's proxy, read when the configuration is used: `https_proxy` (else
        /// `HTTPS_PROXY`) for `https://` URLs, `http_proxy` (lower case only) for `http://` URLs,
        /// and `no_proxy` (else `NO_PROXY`) for the hosts reached directly.
        public static let environment = Proxy(.environment)
        /// No proxy, whatever the environment says.
        public static let none = Proxy(.none)

        /// One `http://` proxy for every URL, `[http://][user[:password]@]host[:port]` (port 1080
        /// when absent, as curl assumes; credentials percent-encoded); the hosts `no_proxy` or
        /// `NO_PROXY` names are still reached directly. Nil for anything else (another scheme,
        /// such as `https://` or `socks5://`, no host, a path).
        public init?(url: String) {
            guard case .success(let proxy) = HTTPProxy.parse(url) else { return nil }
            self.setting = .url(proxy)
        }

        /// `environment`, `none`, or the proxy's `http://host:port`, never its credentials.
        public var description: String {
            switch setting {
            case .environment: return "environment"
            case .none: return "none"
            case .url(let proxy): return "http://\(proxy)"
            }
        }

        /// The description alone, so `dump` and debuggers show no credentials either.
        public var customMirror: Mirror { Mirror(self, children: ["proxy": description]) }

        /// The HTTP time client's policy, reading `environment` where the setting asks for it.
        package func policy(environment: [String: String]) -> HTTPProxyPolicy {
            switch setting {
            case .environment: return .environment(environment)
            case .none: return .direct
            case .url(let proxy): return .fixed(proxy, environment: environment)
            }
        }
    }
}
