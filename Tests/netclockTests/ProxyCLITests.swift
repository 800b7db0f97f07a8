import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// `netclock query --http-only` through real proxies on loopback (TESTING.md, "Proxies on
/// loopback"): Squid, where the origin's name `time.internal` resolves through Squid's
/// `hosts_file` alone (so only the proxy can have reached it), and tinyproxy, with and without the
/// credentials it requires; `no_proxy` and `--no-proxy` going around a proxy that would stall.
@Suite(
    .serialized,
    .enabled(
        if: ProxyPeer.Kind.squid.runnable && ProxyPeer.Kind.tinyproxy.runnable,
        "squid or tinyproxy is not installed (apt-get install -y squid tinyproxy); NETCLOCK_REQUIRE_PEERS=1 makes this fail"
    ),
    .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct ProxyCLITests {
    static let truth = Duration.milliseconds(2_300)

    /// No proxy variable of the test's own environment leaks into the child (empty counts as unset).
    static let cleanEnvironment = [
        "http_proxy": "", "https_proxy": "", "HTTPS_PROXY": "", "no_proxy": "", "NO_PROXY": "",
    ]

    /// The millisecond timestamp header the tests that only need some time ask for: one request
    /// instead of the `Date` refinement's seconds of waits (refinement through a proxy is Squid's
    /// case, whose figures Proxies.md quotes).
    static let timestampHeader = "X-Server-Time-Ms"

    /// The origin server; with `timestamp`, it also sends ``timestampHeader``.
    static func server(secure: Bool, timestamp: Bool = false) throws -> HTTPTimeServer {
        let tls = secure ? HTTPSTimeServerTLS(try TestCertificates.require()) : nil
        return try HTTPTimeServer(
            configuration: .init(offset: truth, timestampHeaderName: timestamp ? timestampHeader : nil),
            tls: tls)
    }

    static func query(_ url: String, _ extra: [String] = [], environment: [String: String] = [:]) async throws
        -> CLIRunner.Output
    {
        let ca = try TestCertificates.require().caFile
        return try await CLIRunner.run(
            ["query", "--http-only", "--http", url, "--ca-file", ca, "--json"] + extra,
            environment: cleanEnvironment.merging(environment) { $1 })
    }

    /// The offset and bound of a successful query, with the truth inside the bound.
    static func expectTruth(_ output: CLIRunner.Output, _ label: String) throws -> (Double, Double) {
        #expect(output.status == 0, "\(label): \(output.stdout) \(output.stderr)")
        let json = try output.json()
        let offset = try #require(json["offset"] as? Double, "\(label): \(output.stdout)")
        let bound = try #require(json["error_bound"] as? Double)
        #expect(abs(offset - 2.3) <= bound + 0.001, "\(label): offset \(offset) ± \(bound)")
        return (offset, bound)
    }

    /// Squid: `http://` in absolute form (`http_proxy`) and `https://` through `CONNECT`
    /// (`HTTPS_PROXY`, upper case), to `time.internal`, which only Squid resolves; the truth is
    /// inside the bound, and Squid's access log shows the requests. The same server directly, side
    /// by side, for the accuracy note. One Squid serves both cases, at once (its start and stop cost
    /// more than a query; each case has its own origin server, so the logs tell them apart); every
    /// message names its case.
    @Test func throughSquidToANameOnlyTheProxyResolves() async throws {
        var options = ProxyPeer.Options()
        options.hosts = ["time.internal": "127.0.0.1"]
        let squid = try ProxyPeer(.squid, options: options)
        defer { squid.stop() }
        let view = SquidView(url: squid.url(), directory: squid.directory)
        await concurrently(["http", "https"]) { try await Self.throughSquid(view, secure: $0 == "https") }
    }

    /// What the cases read of the running Squid, shared by both (``ProxyPeer`` itself is not
    /// `Sendable`): its URL and its logs.
    struct SquidView: Sendable {
        var url: String
        var directory: String
        /// Squid's access log (``ProxyPeer/accessLog``).
        var accessLog: String {
            (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        }
        /// Squid's access and cache logs, for messages.
        var log: String {
            ["access.log", "cache.log", "stdout.log"].compactMap {
                try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
            }.joined(separator: "\n")
        }
    }

    static func throughSquid(_ squid: SquidView, secure: Bool) async throws {
        let label = secure ? "https" : "http"
        let server = try Self.server(secure: secure)
        defer { server.stop() }
        let variable = secure ? "HTTPS_PROXY" : "http_proxy"
        // Through Squid and directly at once: each waits on its own connections.
        async let proxiedRun = Self.query(
            server.url(hostName: "time.internal"), environment: [variable: squid.url])
        async let directRun = Self.query(server.url(hostName: "localhost"))
        let proxied = try await proxiedRun
        let direct = try await directRun
        let (offset, bound) = try Self.expectTruth(proxied, "\(label) through Squid")
        let (directOffset, directBound) = try Self.expectTruth(direct, "\(label) direct")
        let logged =
            secure ? "CONNECT time.internal:\(server.port)" : "HEAD http://time.internal:\(server.port)/"
        // Squid logs a transaction when it ends, which can be after the client has its answer.
        let seen = Polling.wait(every: .milliseconds(20), timeout: .seconds(3)) {
            squid.accessLog.contains(logged)
        }
        #expect(seen, "\(label): \(squid.log)")
        // Refining stops at a 15 ms bound (HTTPSCLITests): 50 ms allows a loaded machine's late
        // wake-ups and Squid's own connection to the origin (inside the interval for http://).
        #expect(bound < 0.05, "\(label): bound \(bound)")
        print(
            "proxy accuracy | squid | \(label) | through the proxy: offset \(offset) ± \(bound)"
                + " (\(proxied.elapsed)) | direct: offset \(directOffset) ± \(directBound) (\(direct.elapsed))"
        )
    }

    /// tinyproxy with `BasicAuth`: without credentials `proxy_authentication_required` naming
    /// `Basic` (exit 1), with them the time; the password is printed nowhere. The `http://` and
    /// `https://` cases run at once, each with its own tinyproxy and server (nothing here is timed).
    @Test func tinyproxyAsksForCredentialsAndTakesThem() async throws {
        await concurrently(["http", "https"]) {
            try await Self.tinyproxyAsksForCredentialsAndTakesThem(secure: $0 == "https")
        }
    }

    static func tinyproxyAsksForCredentialsAndTakesThem(secure: Bool) async throws {
        let label = secure ? "https" : "http"
        var options = ProxyPeer.Options()
        options.basicAuth = ("alice", "s3cret-pw")
        let proxy = try ProxyPeer(.tinyproxy, options: options)
        defer { proxy.stop() }
        let server = try Self.server(secure: secure, timestamp: true)
        defer { server.stop() }
        let url = server.url(hostName: "localhost")
        let refused = try await Self.query(url, ["--proxy", proxy.url()])
        #expect(refused.status == 1, "\(label): \(refused.stdout) \(refused.stderr)")
        let json = try refused.json()
        let http = try #require((json["http"] as? [[String: Any]])?.first, "\(label): \(refused.stdout)")
        #expect(
            http["error_code"] as? String == "proxy_authentication_required", "\(label): \(refused.stdout)")
        #expect((http["reason"] as? String)?.contains("Basic") == true, "\(label): \(refused.stdout)")
        // tinyproxy answers wrong credentials with a bare 401: to CONNECT only the proxy speaks, so
        // it is the proxy's refusal; in absolute form it cannot be told from the origin's 401.
        let wrong = try await Self.query(url, ["--proxy", proxy.url(user: "alice", password: "not-it")])
        #expect(wrong.status == 1, "\(label): \(wrong.stdout)")
        let expected =
            secure
            ? "proxy_authentication_required: the proxy 127.0.0.1:\(proxy.port) refused the credentials given"
            : "http_status: HEAD answered HTTP 401 through the proxy 127.0.0.1:\(proxy.port)"
        #expect(wrong.stdout.contains(expected), "\(label): \(wrong.stdout)")
        let accepted = try await Self.query(
            url,
            [
                "--proxy", proxy.url(user: "alice", password: "s3cret-pw"), "--http-header",
                Self.timestampHeader,
            ])
        let (offset, bound) = try Self.expectTruth(accepted, "\(label) through tinyproxy")
        for output in [refused, wrong, accepted] {
            #expect(!(output.stdout + output.stderr).contains("s3cret-pw"), "\(label): the password printed")
            #expect(
                !(output.stdout + output.stderr).contains("not-it"), "\(label): the wrong password printed")
        }
        #expect(server.requests.count >= 1, "\(label): no request reached the server")
        let logged = secure ? "CONNECT localhost:\(server.port)" : "HEAD http://localhost:\(server.port)/"
        #expect(proxy.log.contains(logged), "\(label): \(proxy.log)")
        print(
            "proxy accuracy | tinyproxy | \(secure ? "https" : "http") | offset \(offset) ± \(bound)"
                + " (\(accepted.elapsed))")
    }

    /// `no_proxy`/`NO_PROXY` in each form that covers 127.0.0.1, and `--no-proxy`, go around a
    /// proxy that would stall every request: the time, and the proxy saw no connection.
    /// The four forms run at once, each with its own proxy and server (nothing here is timed).
    @Test func noProxyGoesAround() async throws {
        let bypasses: [[String: String]] = [
            ["no_proxy": "127.0.0.1"], ["NO_PROXY": "example.com, 127.0.0.0/8"], ["no_proxy": "*"],
            ["NO_PROXY": "::1,127.0.0.1/32"],
        ]
        await concurrently(bypasses) { bypass in
            let label = "\(bypass)"
            let proxy = try HostileProxy(.stall)
            defer { proxy.stop() }
            let server = try Self.server(secure: true, timestamp: true)
            defer { server.stop() }
            let output = try await Self.query(
                server.url(hostName: "127.0.0.1"), ["--http-header", Self.timestampHeader],
                environment: bypass.merging(["https_proxy": proxy.url]) { $1 })
            _ = try Self.expectTruth(output, label)
            #expect(proxy.requestHeads.isEmpty, "\(label): \(proxy.requestHeads)")
        }
    }

    /// The run with `--no-proxy` and the one without it run at once, each with its own stalling
    /// proxy (nothing here is timed), so the first proxy seeing no connection is still its own.
    /// The bypass asks for ``timestampHeader`` (one request); the other run waits 0.5 s for an
    /// answer to `CONNECT` that never comes (any timeout shows the stall; its `CONNECT` is sent at once).
    @Test func noProxyOptionIgnoresTheEnvironment() async throws {
        let proxy = try HostileProxy(.stall)
        defer { proxy.stop() }
        let used = try HostileProxy(.stall)
        defer { used.stop() }
        let server = try Self.server(secure: true, timestamp: true)
        defer { server.stop() }
        let url = server.url(hostName: "localhost")
        async let bypassed = Self.query(
            url, ["--no-proxy", "--http-header", Self.timestampHeader],
            environment: ["https_proxy": proxy.url])
        // Without it, the stalling proxy is used: a timeout naming the proxy, exit 1.
        async let stalledRun = Self.query(url, ["--timeout", "0.5"], environment: ["https_proxy": used.url])
        let output = try await bypassed
        let stalled = try await stalledRun
        _ = try Self.expectTruth(output, "--no-proxy")
        #expect(proxy.requestHeads.isEmpty, "--no-proxy: \(proxy.requestHeads)")
        #expect(stalled.status == 1, "without --no-proxy: \(stalled.stdout)")
        #expect(
            stalled.stdout.contains("did not open the tunnel")
                || stalled.stdout.contains("answer to CONNECT"),
            "without --no-proxy: \(stalled.stdout)")
        #expect(
            used.requestHeads.first?.hasPrefix("CONNECT localhost:\(server.port) HTTP/1.1") == true,
            "without --no-proxy: \(used.requestHeads)")
    }

    /// Usage errors: `--proxy` with another scheme or with `--no-proxy`, never echoing the value.
    @Test func badProxyOptionsAreUsageErrors() async throws {
        let socks = try await CLIRunner.run(
            ["query", "--http-only", "--http", "https://localhost/", "--proxy", "socks5://u:topsecret@h:1"])
        #expect(socks.status == 2)
        #expect(!socks.stderr.contains("topsecret"), "\(socks.stderr)")
        let both = try await CLIRunner.run(
            ["query", "--http-only", "--http", "https://localhost/", "--no-proxy", "--proxy", "http://h:1"])
        #expect(both.status == 2)
        #expect(both.stderr.contains("exclude each other"), "\(both.stderr)")
    }
}
