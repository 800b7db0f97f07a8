import NetClockPlatform

/// Which proxy, if any, each URL's requests go through: one for `http://` URLs, one for `https://`
/// URLs, and the hosts that bypass both.
///
/// Read from the environment with curl's conventions (``environment(_:)``), set to one proxy for
/// every URL (``fixed(_:environment:)``), or ``direct``.
package struct HTTPProxyPolicy: Hashable, Sendable {
    /// What one scheme uses.
    package enum Choice: Hashable, Sendable {
        /// No proxy.
        case direct
        /// This proxy.
        case proxy(HTTPProxy)
        /// A proxy is configured but cannot be used; the measurement fails with this reason rather
        /// than going around the proxy.
        case unusable(ProxyURLError)
    }

    /// For `http://` URLs.
    package var http: Choice
    /// For `https://` URLs.
    package var https: Choice
    /// Hosts reached directly whatever the choice.
    package var bypass: NoProxyList

    /// No proxy for any URL.
    package static let direct = HTTPProxyPolicy(http: .direct, https: .direct, bypass: .empty)

    package init(http: Choice, https: Choice, bypass: NoProxyList) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// Every environment variable the policies read (``environment(_:)``, ``fixed(_:environment:)``).
    package static let environmentNames = [
        "http_proxy", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// The proxy of a process's environment, as curl reads it: `https_proxy`, else `HTTPS_PROXY`,
    /// for `https://` URLs; `http_proxy` (lower case only: a CGI program gets a request's `Proxy:`
    /// header as `HTTP_PROXY`) for `http://` URLs; `no_proxy`, else `NO_PROXY`, for the hosts that
    /// bypass them. An empty variable counts as unset.
    package static func environment(_ environment: [String: String]) -> HTTPProxyPolicy {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first {
                !$0.trimmingWhitespace().isEmpty
            }
        }
        func choice(_ names: String...) -> Choice {
            guard let text = names.lazy.compactMap({ value($0) }).first else { return .direct }
            switch HTTPProxy.parse(text) {
            case .success(let proxy): return .proxy(proxy)
            case .failure(let error): return .unusable(ProxyURLError("\(names[0]): \(error.description)"))
            }
        }
        return HTTPProxyPolicy(
            http: choice("http_proxy"), https: choice("https_proxy", "HTTPS_PROXY"),
            bypass: NoProxyList(value("no_proxy", "NO_PROXY") ?? ""))
    }

    /// `proxy` for every URL, except the hosts the environment's `no_proxy`/`NO_PROXY` names (as
    /// curl's `--proxy` does).
    package static func fixed(_ proxy: HTTPProxy, environment: [String: String]) -> HTTPProxyPolicy {
        let bypass = [environment["no_proxy"], environment["NO_PROXY"]].compactMap { $0 }.first {
            !$0.isEmpty
        }
        return HTTPProxyPolicy(http: .proxy(proxy), https: .proxy(proxy), bypass: NoProxyList(bypass ?? ""))
    }

    /// The choice for a URL to `host` (`isSecure`: `https://`).
    package func choice(host: String, isSecure: Bool) -> Choice {
        let choice = isSecure ? https : http
        if case .direct = choice { return .direct }
        return bypass.bypasses(host) ? .direct : choice
    }
}
