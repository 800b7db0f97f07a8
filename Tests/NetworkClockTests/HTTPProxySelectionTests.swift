import Foundation
@testable import HTTPTime
import Testing

@testable import NetworkClock

/// Which proxy a URL goes through (curl's variables and `NO_PROXY` forms), how a proxy URL is read,
/// that credentials are never shown, what is sent to a proxy, and which answers count as cache hits.
struct HTTPProxySelectionTests {
    static let proxy = "http://127.0.0.1:3128"

    /// `NO_PROXY` forms: host, domain suffix (with or without the leading dot), IP, CIDR, `*`.
    @Test(arguments: [
        ("example.com", "example.com", true), ("example.com", "www.example.com", true),
        (".example.com", "example.com", true), (".example.com", "a.b.example.com", true),
        ("example.com", "notexample.com", false), ("example.com", "example.com.org", false),
        ("Example.COM.", "www.example.com", true), ("example.com", "WWW.Example.com.", true),
        ("192.0.2.1", "192.0.2.1", true), ("192.0.2.1", "192.0.2.10", false),
        ("10.0.0.0/8", "10.200.3.4", true), ("10.0.0.0/8", "11.0.0.1", false),
        ("192.168.0.0/16", "192.168.255.1", true), ("172.16.0.0/12", "172.32.0.1", false),
        ("::1", "0:0::1", true), ("fd00::/8", "fd12:3456::1", true), ("fd00::/8", "fe80::1", false),
        ("[::1]", "::1", true), ("*", "anything.example", true), ("a.com, *", "b.com", false),
        ("10.0.0.0/99", "10.0.0.1", false), ("127.0.0.1", "localhost", false),
        (" a.com ,, b.com ", "x.b.com", true), ("", "example.com", false),
    ])
    func noProxyForms(_ list: String, _ host: String, _ bypassed: Bool) {
        #expect(NoProxyList(list).bypasses(host) == bypassed, "\(list) / \(host)")
    }

    /// `https_proxy` before `HTTPS_PROXY`; `http_proxy` in lower case only; empty counts as unset.
    @Test func environmentFollowsCurl() throws {
        func route(_ environment: [String: String], _ url: String) -> HTTPProxyPolicy.Choice {
            let target = try? HTTPRequestTarget(url: URL(string: url)!)
            return HTTPProxyPolicy.environment(environment).choice(
                host: target?.host ?? "", isSecure: target?.isSecure ?? false)
        }
        let a = try #require(try? HTTPProxy.parse("a:1").get())
        let b = try #require(try? HTTPProxy.parse("b:2").get())
        #expect(route(["https_proxy": "a:1", "HTTPS_PROXY": "b:2"], "https://t/") == .proxy(a))
        #expect(route(["HTTPS_PROXY": "b:2"], "https://t/") == .proxy(b))
        #expect(route(["https_proxy": "", "HTTPS_PROXY": "b:2"], "https://t/") == .proxy(b))
        #expect(route(["HTTP_PROXY": "b:2"], "http://t/") == .direct)
        #expect(route(["http_proxy": "a:1"], "http://t/") == .proxy(a))
        #expect(route(["http_proxy": "a:1"], "https://t/") == .direct)
        #expect(route(["https_proxy": "a:1"], "http://t/") == .direct)
        #expect(route(["https_proxy": "a:1", "no_proxy": "t", "NO_PROXY": "*"], "https://t/") == .direct)
        #expect(route(["https_proxy": "a:1", "no_proxy": "", "NO_PROXY": "t"], "https://t/") == .direct)
        #expect(route(["https_proxy": "a:1", "no_proxy": "u"], "https://t/") == .proxy(a))
        guard case .unusable(let error) = route(["https_proxy": "socks5://u:pw@h:1"], "https://t/") else {
            Issue.record("a socks5 proxy should be unusable")
            return
        }
        #expect(
            error.description
                == "https_proxy: proxy scheme 'socks5' is not supported (only http:// proxies are)")
    }

    /// curl's reading of a proxy URL: no scheme means `http://`, no port means 1080.
    @Test func proxyURLs() throws {
        let plain = try HTTPProxy.parse("proxy.example").get()
        #expect(plain.host == "proxy.example" && plain.port == 1080 && !plain.hasCredentials)
        let full = try HTTPProxy.parse("http://us%40er:p%3Ass@[::1]:3128/").get()
        #expect(full.host == "::1" && full.port == 3128)
        #expect(full.authorization == "Basic " + Data("us@er:p:ss".utf8).base64EncodedString())
        #expect(full.description == "[::1]:3128")
        for bad in [
            "https://p:1", "socks5://p:1", "http://:1", "http://p:0", "http://p:1/path", "http://p:99999",
        ] {
            guard case .failure = HTTPProxy.parse(bad) else {
                Issue.record("\(bad) should be refused")
                continue
            }
        }
    }

    /// The credentials appear in no description, dump or error; only in the header sent.
    @Test func credentialsAreNeverShown() throws {
        let secret = "hunter2-secret"
        let proxy = try HTTPProxy.parse("http://bob:\(secret)@p.example:8080").get()
        let option = try #require(NetworkClock.HTTPOptions.Proxy(url: "http://bob:\(secret)@p.example:8080"))
        var options = NetworkClock.HTTPOptions()
        options.proxy = option
        var dumped = ""
        dump(proxy, to: &dumped)
        dump(options, to: &dumped)
        let shown = [
            "\(proxy)", "\(option)", String(reflecting: option), String(reflecting: proxy), "\(options)",
            dumped,
        ]
        for text in shown { #expect(!text.contains(secret) && !text.contains("bob"), "\(text)") }
        #expect("\(option)" == "http://p.example:8080")
        if case .failure(let error) = HTTPProxy.parse("ftp://bob:\(secret)@p:1") {
            #expect(!error.description.contains(secret))
        }
        #expect(NetworkClock.HTTPOptions.Proxy(url: "socks5://bob:\(secret)@p:1") == nil)
    }

    /// `http://` through a proxy: absolute form with the credentials; `https://`: `CONNECT` with
    /// them, and the tunnelled request in origin form without them.
    @Test func whatIsSentToTheProxy() throws {
        let proxy = try HTTPProxy.parse("http://u:pw@p:3128").get()
        let authorization = "Proxy-Authorization: Basic " + Data("u:pw".utf8).base64EncodedString()
        var plain = try HTTPRequestTarget(url: URL(string: "http://time.example:8080/x?y")!)
        plain.proxy = proxy
        let head = String(decoding: plain.head(method: .head), as: UTF8.self)
        #expect(head.hasPrefix("HEAD http://time.example:8080/x?y HTTP/1.1\r\nHost: time.example:8080\r\n"))
        #expect(head.contains("Cache-Control: no-cache\r\n") && head.contains(authorization + "\r\n"))
        var secure = try HTTPRequestTarget(url: URL(string: "https://[2001:db8::1]/")!)
        secure.proxy = proxy
        let connect = String(decoding: secure.connectHead(), as: UTF8.self)
        #expect(connect.hasPrefix("CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n"))
        #expect(connect.contains(authorization) && connect.hasSuffix("\r\n\r\n"))
        let tunnelled = String(decoding: secure.head(method: .get), as: UTF8.self)
        #expect(tunnelled.hasPrefix("GET / HTTP/1.1\r\n") && !tunnelled.contains("Proxy-Authorization"))
    }

    /// A cache hit is refused whatever `Age` says; a miss or a revalidated answer is not.
    @Test(arguments: [
        (["Age": "3"], true), (["Age": "0"], false), (["X-Cache": "HIT from squid"], true),
        (["Age": "0", "X-Cache": "hit"], true), (["X-Cache": "MISS from squid"], false),
        (["Cache-Status": "ExampleCache; hit; ttl=30"], true), (["Cache-Status": "Squid; fwd=miss"], false),
        ([:], false),
    ])
    func cacheHits(_ fields: [String: String], _ hit: Bool) {
        let found = HTTPResponseEvidence.cacheHit { name in
            fields.first { $0.key.lowercased() == name.lowercased() }?.value
        }
        #expect((found != nil) == hit, "\(fields): \(String(describing: found))")
    }
}
