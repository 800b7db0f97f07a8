import Foundation
@testable import HTTPTime
import LoopbackServers
import NetClockPlatform
import Testing
import TimeValues
import WallClockReference

/// A cache that lies about freshness (TESTING.md, "Proxies on loopback"): Squid told to answer
/// from its cache even to `Cache-Control: no-cache` requests, in front of an origin whose answers
/// are cacheable. Its stored answer is refused as `cached_response`, never taken as fresh time; an
/// honest Squid asks the origin again (`Cache-Control: no-cache`), and the time is good.
@Suite(
    .serialized,
    .enabled(
        if: ProxyPeer.Kind.squid.runnable,
        "squid is not installed (apt-get install -y squid); NETCLOCK_REQUIRE_PEERS=1 makes this fail"),
    .wallClockReference)
struct HTTPProxySquidCacheTests {
    /// The lying and the honest cache run at once, each with its own Squid and origin: neither
    /// case is timed. Every message names its case.
    @Test func aResponseSquidServesFromItsCacheIsRefused() async throws {
        await withTaskGroup(of: Void.self) { group in
            for lyingCache in [true, false] {
                group.addTask {
                    do {
                        try await Self.aResponseSquidServesFromItsCacheIsRefused(lyingCache: lyingCache)
                    } catch {
                        Issue.record("\(Self.label(lyingCache)): \(error)")
                    }
                }
            }
        }
    }

    static func label(_ lyingCache: Bool) -> String { lyingCache ? "lying cache" : "honest cache" }

    static func aResponseSquidServesFromItsCacheIsRefused(lyingCache: Bool) async throws {
        let label = Self.label(lyingCache)
        var options = ProxyPeer.Options()
        options.hosts = ["time.internal": "127.0.0.1"]
        options.cacheIgnoringNoCache = lyingCache
        let squid = try ProxyPeer(.squid, options: options)
        defer { squid.stop() }
        let truth = Duration.milliseconds(2_300)
        let server = try HTTPTimeServer(
            configuration: .init(offset: truth, misbehaviour: .cacheable(maxAge: 300)))
        defer { server.stop() }
        let proxy = try HTTPProxy.parse(squid.url()).get()
        let url = try #require(URL(string: server.url(hostName: "time.internal")))
        // A GET through Squid stores the answer (Squid keeps no HEAD answers, but serves HEAD from
        // a stored GET).
        var target = try HTTPRequestTarget(url: url)
        target.proxy = proxy
        let client = HTTPHeadClient(maximumHeadBytes: 16_384, clock: BootTimeClock())
        let primed = await client.perform(target, method: .get, sendAt: nil, timeout: .seconds(3))
        guard case .response(let head) = primed.result else {
            Issue.record("\(label): the priming GET failed: \(primed.result)\n\(squid.log)")
            return
        }
        #expect(head.statusCode == 200, "\(label): \(head.statusCode)")
        // Squid logs the GET when its transaction ends, its answer stored. No wait for the answer to
        // age: a hit is refused even with `Age: 0` (its `Date` is from an earlier request), and the
        // honest Squid's answer is shown to come from the origin by the origin's count.
        let accessLog = squid.directory + "/access.log"
        let stored = try await BlockingCases.onThread {
            Polling.wait(every: .milliseconds(5), timeout: .seconds(3)) {
                (try? String(contentsOfFile: accessLog, encoding: .utf8))?.contains(" GET http://") == true
            }
        }
        #expect(stored, "\(label): \(squid.accessLog)")
        var configuration = HTTPTimeClient.Configuration(requestTimeout: .seconds(3), deadline: .seconds(5))
        configuration.proxy = .fixed(proxy, environment: [:])
        let source = HTTPTimeClient(configuration: configuration)
        guard lyingCache else {
            // One request is enough: an honest Squid asks the origin again for it.
            var one = configuration
            one.maximumRequests = 1
            let measurement = try await HTTPTimeClient(configuration: one).measure(url)
            // 1 ms for reading the wall clock beside the monotonic one, as the CLI tests allow.
            let offsets = measurement.offsets
            let slack = Duration.milliseconds(1)
            #expect(
                offsets.lowerBound - slack <= truth && truth <= offsets.upperBound + slack,
                "\(label): \(offsets)")
            #expect(
                server.requests.count > 1, "\(label): \(server.requests.count) requests reached the origin")
            print("squid cache | honest | offsets \(offsets)")
            return
        }
        let error = await HTTPSClientTests.failure(of: source, url).0
        #expect(error?.code == .cachedResponse, "\(label): \(String(describing: error))\n\(squid.log)")
        #expect(
            error?.reason.contains("Age: ") == true || error?.reason.contains("X-Cache: HIT") == true,
            "\(label): \(String(describing: error))")
        // Squid logs a transaction when it ends, which can be just after the client has its answer.
        // (Polled on a thread of its own: the other case shares the two cooperative threads.)
        let logged = try await BlockingCases.onThread {
            Polling.wait(every: .milliseconds(20), timeout: .seconds(3)) {
                (try? String(contentsOfFile: accessLog, encoding: .utf8))?.contains("HIT/200") == true
            }
        }
        #expect(logged, "\(label): \(squid.accessLog)")
        // The origin answered the priming GET only.
        #expect(server.requests.count == 1, "\(label): \(server.requests.count) requests reached the origin")
        print("squid cache | \(error?.description ?? "-")")
    }
}
