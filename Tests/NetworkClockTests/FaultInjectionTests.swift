import Dispatch
import Foundation
@testable import HTTPTime
import LoopbackServers
import LoopbackTestSupport
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

/// Faults injected on loopback: loss, duplication, reordering, a server dying mid-burst, replies
/// after the deadline, ICMP port unreachable, DNS failure, an HTTP server stalling mid-headers.
/// Each case must end with the right error, or a correct result, within a bound on its elapsed
/// time that the test asserts, so nothing can hang.
///
/// Tolerances:
/// * Offsets: every fake server shares this machine's clock plus a configured offset, so that offset
///   is the truth, and a sample's error is at most half its round-trip delay (a sync's, its error
///   bound). That is what is checked, with the round trip capped at 200 ms; a wrong sample here would
///   be 0.75 s off. A fixed 2 ms tolerance is not used: with the stress test keeping both cores busy
///   in parallel, a loopback round trip occasionally takes over 10 ms.
/// * Elapsed time: lower bounds are exact (a timeout is never cut short). Upper bounds add
///   ``slack`` (1 s) to what the protocol allows, for thread wake-ups on a loaded 2-core machine
///   (another process may keep a core busy). Blocking client calls run and are timed on a thread of their
///   own (``timedOnOwnThread(_:)``). Async calls (the engines, HTTP) are timed from the test task,
///   which also waits for a cooperative thread to resume it — shared with every suite running in
///   parallel, some of which block theirs — so they get ``asyncSlack`` (1 s). Both are far less
///   than any hang, and less than the timeout a wrong implementation would wait out (each "fast"
///   case is given 2 s timeouts).
@Suite(.serialized, .wallClockReference)
struct FaultInjectionTests {
    static let truth = Duration.milliseconds(750)
    // 1 s (was 0.5 s): a loaded 2-core machine; still below every timeout a wrong implementation
    // would wait out here (2 s).
    static let slack = Duration.seconds(1)
    static let asyncSlack = Duration.seconds(1)
    static let clock = BootTimeClock()

    static func server(_ behaviour: FakeNTPServer.Behaviour = .normal, host: String = "127.0.0.1") throws
        -> FakeNTPServer
    {
        var configuration = FakeNTPServer.Configuration(host: host, offset: truth)
        configuration.behaviour = behaviour
        return try FakeNTPServer(configuration: configuration)
    }

    static func address(_ server: FakeNTPServer) throws -> SocketAddress {
        try #require(SocketAddress(numericHost: server.host, port: server.port))
    }

    /// An address on which nothing listens: a fake server's, once it has stopped.
    static func closedAddress(host: String = "127.0.0.1") throws -> SocketAddress {
        let probe = try server(host: host)
        let address = try Self.address(probe)
        probe.stop()
        return address
    }

    static func policy(_ servers: [ServerName], query: QueryOptions, deadline: Duration? = nil) -> SyncPolicy
    {
        SyncPolicy(servers: servers, query: query, deadline: deadline)
    }

    static func name(_ server: FakeNTPServer) -> ServerName {
        ServerName(host: server.host, port: server.port)
    }

    /// A sample is correct when the truth lies within half its round trip of its offset (plus 10 µs
    /// for the 2⁻³² s timestamp resolution and the per-burst wall-clock mapping), and its round trip
    /// is under 200 ms — a loopback round trip, even with both threads descheduled on a loaded
    /// machine (55 ms was seen), and small enough that a wrong sample (0.75 s off) cannot pass.
    static func expectCorrect(_ sample: NTPSample, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            gap(sample.offset, truth) <= sample.delay / 2 + .microseconds(10),
            "offset \(sample.offset), delay \(sample.delay)", sourceLocation: sourceLocation)
        #expect(sample.delay < .milliseconds(200), sourceLocation: sourceLocation)
    }

    /// A sync is correct when the truth lies within its error bound (plus 10 µs, as above), and that
    /// bound is under 200 ms.
    static func expectCorrect(_ report: SyncReport, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            gap(report.offset, truth) <= report.errorBound + .microseconds(10),
            "offset \(report.offset) ± \(report.errorBound)", sourceLocation: sourceLocation)
        #expect(report.errorBound < .milliseconds(200), sourceLocation: sourceLocation)
    }

    static func elapsed(since start: MonotonicInstant) -> Duration { clock.now() - start }

    /// Which of `count` requests a seeded 30 % loss drops: exactly `count × 3 / 10` of them, at
    /// positions chosen by a SplitMix64-driven shuffle, so every run drops the same ones.
    static func lossPattern(count: Int, seed: UInt64) -> [Bool] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var pattern = Array(repeating: false, count: count)
        for index in 0..<(count * 3 / 10) { pattern[index] = true }
        for index in stride(from: count - 1, to: 0, by: -1) {
            pattern.swapAt(index, Int(next() % UInt64(index + 1)))
        }
        return pattern
    }

    // MARK: Packet loss

    /// 30 % of 48 requests are dropped (seeded): each dropped request times out after exactly its
    /// timeout and every other one gives a correct sample; no burst takes longer than its timeouts.
    /// The six bursts run at once, each against its own server and timed on its own thread: each
    /// waits only on its own socket.
    @Test func thirtyPercentLossCostsOnlyTheLostRequestsTimeouts() async throws {
        let bursts = 6
        let samples = 8
        let timeout = Duration.milliseconds(60)
        let pattern = Self.lossPattern(count: bursts * samples, seed: 30)
        #expect(pattern.filter { $0 }.count == 14)
        let drops = (0..<bursts).map { Array(pattern[($0 * samples)..<(($0 + 1) * samples)]) }
        let servers = try drops.map { burstDrops in
            let server = try Self.server()
            server.update { $0.nextBehaviours = burstDrops.map { $0 ? .noReply : .normal } }
            return server
        }
        defer { servers.forEach { $0.stop() } }
        let addresses = try servers.map(Self.address)
        let runs = try await BlockingCases.run(Array(0..<bursts), lanes: bursts) { burst in
            let clock = BootTimeClock()
            let start = clock.now()
            let result = SNTPClient().query(
                addresses[burst], options: QueryOptions(samples: samples, interval: .zero, timeout: timeout))
            return (result, clock.now() - start)
        }
        #expect(runs.count == bursts)
        var answered = 0
        for (burst, (result, elapsed)) in runs {
            let drops = drops[burst]
            let lost = drops.filter { $0 }.count
            #expect(result.exchanges.map { $0.sample != nil } == drops.map { !$0 }, "burst \(burst)")
            #expect(result.exchanges.filter { $0.outcome == .timedOut }.count == lost)
            result.samples.forEach { Self.expectCorrect($0) }
            #expect(elapsed >= timeout * lost, "a timeout was cut short")
            #expect(elapsed < timeout * lost + Self.slack, "burst \(burst) took \(elapsed)")
            if lost == samples {
                #expect(result.failure == .timedOut)
            } else {
                #expect(result.failure == nil)
                #expect(result.best != nil)
            }
            answered += samples - lost
        }
        #expect(answered == 34)
        #expect(servers.map(\.requestCount) == Array(repeating: samples, count: bursts))
    }

    /// Three servers, each losing 30 % of the requests (seeded), still give the right time in every
    /// sync, each within the sync deadline.
    @Test func syncsSucceedThroughThirtyPercentLossOnEveryServer() async throws {
        let servers = try (0..<3).map { _ in try Self.server() }
        defer { servers.forEach { $0.stop() } }
        // Short timeouts: each burst holds one of Dispatch's few threads while it waits, which suites
        // running in parallel need for their own syncs.
        let query = QueryOptions(samples: 4, interval: .zero, timeout: .milliseconds(40))
        // A burst takes at most 4 × 40 ms. The deadline is 2 s, not the default 400 ms: a burst
        // waits for one of Dispatch's few threads before it starts (see
        // `aGoodServerIsQueriedAlthoughSilentServersHoldEveryDispatchThread`), and with suites
        // running in parallel a late start would cut a burst short and change what this test counts.
        let policy = Self.policy(servers.map(Self.name), query: query, deadline: .seconds(2))
        let syncs = 4
        let patterns = (0..<3).map { Self.lossPattern(count: syncs * 4, seed: 100 + UInt64($0)) }
        for sync in 0..<syncs {
            for (index, server) in servers.enumerated() {
                let drops = patterns[index][(sync * 4)..<(sync * 4 + 4)]
                server.update { $0.nextBehaviours = drops.map { $0 ? .noReply : .normal } }
            }
            let start = Self.clock.now()
            let report = try await NTPSyncEngine(policy: policy).sync()
            #expect(Self.elapsed(since: start) < policy.deadline + Self.asyncSlack)
            Self.expectCorrect(report)
            for (index, source) in report.servers.enumerated() {
                let lost = patterns[index][(sync * 4)..<(sync * 4 + 4)].filter { $0 }.count
                #expect(source.ntp?.query?.samples.count == 4 - lost, "sync \(sync) source \(index)")
                #expect(
                    lost == 4 ? source.status == .timeout : [.selected, .survivor].contains(source.status))
            }
        }
    }

    // MARK: Duplicated and reordered replies

    /// Duplicates, stale copies racing the real reply and a spoofed origin: every request still
    /// gets its own correct sample, each stray datagram is rejected for its own reason, and nothing
    /// waits for a timeout.
    @Test func duplicatedAndStrayRepliesAreRejectedAndEveryRequestGetsItsOwn() async throws {
        let server = try Self.server()
        defer { server.stop() }
        server.update {
            $0.nextBehaviours = [
                .duplicateReply, .staleReplyFirst, .duplicateReply, .badReplyFirst(.wrongOrigin), .normal,
                .staleReplyFirst,
            ]
        }
        let address = try Self.address(server)
        let (result, elapsed) = await timedOnOwnThread {
            SNTPClient().query(
                address, options: QueryOptions(samples: 6, interval: .zero, timeout: .seconds(2)))
        }
        #expect(elapsed < Self.slack, "a stray reply made the client wait for a timeout")
        #expect(result.samples.count == 6)
        result.samples.forEach { Self.expectCorrect($0) }
        // A copy of an answered request's reply, and a "stale" reply echoing an answered request,
        // are both duplicates; the spoofed origin matches nothing.
        #expect(
            result.exchanges.map { $0.rejected.map(\.reason) } == [
                [], [.duplicateReply, .duplicateReply], [], [.duplicateReply, .originMismatch], [],
                [.duplicateReply],
            ])
        // Every sample answers its own request.
        #expect(Set(result.samples.map(\.reply.originTimestamp)).count == 6)
    }

    /// Reordering: request 1's reply arrives (late) during request 2's wait and before request 2's
    /// own reply; it is rejected as stale, request 2's reply is taken, and request 1 has timed out.
    @Test func aReplyOvertakenByTheNextRequestIsStale() async throws {
        let server = try Self.server()
        defer { server.stop() }
        // Timeline (ms): request 1 at 0, times out at 800; request 2 at 800; reply 1 at 1200 (stale);
        // reply 2 at 1400, 200 ms before request 2 times out; request 3 answered at once. (Was 400 /
        // 600 / 300 ms: every event 100-200 ms from the next, which a descheduled server thread on
        // a loaded machine can overrun; the order is what is tested.)
        server.update {
            $0.nextBehaviours = [.lateReply(.milliseconds(1_200)), .lateReply(.milliseconds(600))]
        }
        let timeout = Duration.milliseconds(800)
        let address = try Self.address(server)
        let (result, elapsed) = await timedOnOwnThread {
            SNTPClient().query(address, options: QueryOptions(samples: 3, interval: .zero, timeout: timeout))
        }
        #expect(result.exchanges.count == 3)
        #expect(result.exchanges.first?.outcome == .timedOut)
        #expect(result.exchanges.map { $0.sample != nil } == [false, true, true])
        #expect(result.exchanges.map { $0.rejected.map(\.reason) } == [[], [.staleReply], []])
        // Reply 2 was held 600 ms after T3, so its offset may be off by up to half its delay: the
        // bound still holds, and the prompt third sample is exact.
        for sample in result.samples {
            #expect(gap(sample.offset, Self.truth) <= sample.delay / 2 + .microseconds(10))
        }
        if let last = result.samples.last { Self.expectCorrect(last) }
        #expect(result.best == result.samples.last)
        #expect(elapsed >= .milliseconds(1_400))
        #expect(elapsed < .milliseconds(1_400) + Self.slack)
    }

    // MARK: A server that dies mid-burst

    /// The server is stopped from another thread after answering three requests of an eight-request
    /// burst: the next request is refused (ICMP port unreachable), the burst ends there instead of
    /// timing out five more times, and the result keeps the three good samples.
    @Test func aServerDyingMidBurstEndsTheBurstAndKeepsTheGoodSamples() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let killed = DispatchSemaphore(value: 0)
        Thread {
            _ = server.waitForRequests(count: 3, timeout: .seconds(5), completed: true)
            server.stop()
            killed.signal()
        }.start()
        let interval = Duration.milliseconds(50)
        let timeout = Duration.milliseconds(500)
        let address = try Self.address(server)
        let (result, elapsed) = await timedOnOwnThread {
            SNTPClient().query(
                address, options: QueryOptions(samples: 8, interval: interval, timeout: timeout))
        }
        #expect(killed.wait(timeout: .now() + 5) == .success)
        #expect(result.failure == nil)
        #expect(result.samples.count >= 3)
        result.samples.forEach { Self.expectCorrect($0) }
        #expect(result.exchanges.count < 8)
        #expect(result.exchanges.last?.outcome == .refused)
        // Samples first, then at most one request lost in flight at the moment of death, then the refusal.
        let outcomes = result.exchanges.map(\.outcome)
        let good = result.samples.count
        #expect(outcomes.prefix(good).allSatisfy { $0.isSample })
        #expect(outcomes.dropFirst(good).allSatisfy { $0 == .timedOut || $0 == .refused })
        #expect(outcomes.count <= good + 2)
        #expect(elapsed < interval * outcomes.count + timeout + Self.slack, "took \(elapsed)")
    }

    /// The same inside a sync of three servers: the dying server's good samples still count, it
    /// stays a survivor, and the sync ends well before its deadline.
    @Test func aSyncKeepsTheSamplesOfAServerThatDiedMidBurst() async throws {
        let servers = try (0..<3).map { _ in try Self.server() }
        defer { servers.forEach { $0.stop() } }
        let victim = servers[2]
        Thread {
            _ = victim.waitForRequests(count: 2, timeout: .seconds(5), completed: true)
            victim.stop()
        }.start()
        let query = QueryOptions(samples: 6, interval: .milliseconds(20), timeout: .milliseconds(300))
        let policy = Self.policy(servers.map(Self.name), query: query)
        let start = Self.clock.now()
        let report = try await NTPSyncEngine(policy: policy).sync()
        let elapsed = Self.elapsed(since: start)
        Self.expectCorrect(report)
        let dead = report.servers[2]
        #expect([.selected, .survivor].contains(dead.status), "\(dead.status): \(dead.reason ?? "")")
        #expect((dead.ntp?.query?.samples.count ?? 0) >= 2)
        #expect(dead.ntp?.query?.exchanges.last?.outcome == .refused)
        #expect(report.agreeingSources == 3)
        // The healthy servers take 5 × 20 ms and the victim's refusal takes no time, so this usually
        // ends in about 0.1 s; what is asserted is the deadline (2.2 s), because a burst may wait for
        // a Dispatch thread while suites run in parallel (see the known issue below).
        #expect(elapsed < policy.deadline + Self.asyncSlack, "took \(elapsed)")
    }

    // MARK: Replies after the deadline

    /// Replies that come 2 s late are never waited for: each request times out on time, the result
    /// is a timeout, and a burst deadline cuts the burst short exactly.
    /// The two bursts run at once, each against its own server and timed on its own thread.
    @Test func repliesAfterTheDeadlineAreTimeouts() async throws {
        // 2 s (was 1 s), so that waiting for a late reply still exceeds 2 timeouts + 1 s of slack.
        let servers = try (0..<2).map { _ in try Self.server(.lateReply(.seconds(2))) }
        defer { servers.forEach { $0.stop() } }
        let address = try Self.address(servers[0])
        let boundedAddress = try Self.address(servers[1])
        let timeout = Duration.milliseconds(150)
        async let plainRun = timedOnOwnThread {
            SNTPClient().query(address, options: QueryOptions(samples: 2, interval: .zero, timeout: timeout))
        }
        // With a deadline 300 ms away, the second request waits only the 150 ms left and no third
        // request starts. (Was 200 ms, leaving 50 ms: a late wake-up from the first timeout on a
        // loaded machine could reach the deadline before the second request started.)
        async let boundedRun = timedOnOwnThread {
            SNTPClient().query(
                boundedAddress, options: QueryOptions(samples: 8, interval: .zero, timeout: timeout),
                deadline: BootTimeClock().now() + .milliseconds(300))
        }
        let (result, elapsed) = await plainRun
        let (bounded, boundedElapsed) = await boundedRun
        #expect(result.failure == .timedOut)
        #expect(result.exchanges.map(\.outcome) == [.timedOut, .timedOut])
        #expect(elapsed >= timeout * 2)
        #expect(elapsed < timeout * 2 + Self.slack)
        #expect(bounded.failure == .timedOut)
        #expect(bounded.exchanges.count == 2)
        #expect(boundedElapsed >= .milliseconds(300))
        #expect(boundedElapsed < .milliseconds(300) + Self.slack)
    }

    /// A sync whose servers all answer after its deadline fails with every source timed out, at the
    /// deadline: each burst's second request waits only the 100 ms left of it. (Two servers, so
    /// that on two cores both bursts start at once; see the known issue below.)
    @Test func aSyncWhoseRepliesAllComeTooLateFailsAtItsDeadline() async throws {
        let servers = try (0..<2).map { _ in try Self.server(.lateReply(.seconds(2))) }
        defer { servers.forEach { $0.stop() } }
        let query = QueryOptions(samples: 4, interval: .zero, timeout: .milliseconds(150))
        let policy = Self.policy(servers.map(Self.name), query: query, deadline: .milliseconds(250))
        let start = Self.clock.now()
        do {
            let report = try await NTPSyncEngine(policy: policy).sync()
            Issue.record("a sync with only late replies succeeded: \(report.offset)")
        } catch {
            guard error.code == .noUsableSource else {
                Issue.record("expected no usable source, got \(error)")
                return
            }
            let sources = error.servers
            #expect(sources.map(\.status) == [.timeout, .timeout])
            for source in sources {
                let outcomes = source.ntp?.query?.exchanges.map(\.outcome) ?? []
                #expect(!outcomes.isEmpty && outcomes.allSatisfy { $0 == .timedOut }, "\(outcomes)")
            }
        }
        let elapsed = Self.elapsed(since: start)
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .milliseconds(250) + Self.asyncSlack)
    }

    // MARK: Regression: bursts must not queue behind each other

    /// As many silent servers as this machine has cores, plus one good server, with a 0.8 s sync
    /// deadline. The good server answers at once, so the sync should succeed with it.
    ///
    /// Regression test: bursts used to run on `DispatchQueue.global`, which on Linux runs about as
    /// many blocking items at a time as there are cores (libdispatch cannot see a thread blocked in
    /// poll(2)), so the silent servers' bursts kept the good one from ever being queried and the
    /// sync failed with every source "timeout". Each burst now has a thread of its own.
    @Test
    func aGoodServerIsQueriedAlthoughSilentServersHoldEveryDispatchThread() async throws {
        let cores = min(8, ProcessInfo.processInfo.activeProcessorCount)
        let silent = try (0..<cores).map { _ in try Self.server(.noReply) }
        let good = try Self.server()
        defer { (silent + [good]).forEach { $0.stop() } }
        let query = QueryOptions(samples: 4, interval: .zero, timeout: .milliseconds(300))
        let deadline = Duration.milliseconds(800)
        let policy = Self.policy((silent + [good]).map(Self.name), query: query, deadline: deadline)
        let start = Self.clock.now()
        let outcome: Result<SyncReport, SyncError>
        do {
            outcome = .success(try await NTPSyncEngine(policy: policy).sync())
        } catch {
            outcome = .failure(error)
        }
        let elapsed = Self.elapsed(since: start)
        // The silent servers are waited for until the deadline.
        #expect(elapsed < deadline + Self.asyncSlack, "took \(elapsed)")
        let report = try outcome.get()
        #expect(report.servers.last?.status == .selected)
        Self.expectCorrect(report)
    }

    // MARK: ICMP port unreachable

    /// A port nothing listens on is refused at once, on IPv4 and IPv6, although each reply may take
    /// 2 s: the burst stops at the first refusal.
    @Test func aClosedPortIsRefusedFast() async throws {
        try await Self.expectClosedPortRefusedFast(host: "127.0.0.1")
    }

    /// The same on IPv6 loopback.
    @Test(.enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func aClosedIPv6PortIsRefusedFast() async throws {
        try await Self.expectClosedPortRefusedFast(host: "::1")
    }

    static func expectClosedPortRefusedFast(host: String) async throws {
        let address = try Self.closedAddress(host: host)
        let (result, elapsed) = await timedOnOwnThread {
            SNTPClient().query(
                address, options: QueryOptions(samples: 4, interval: .zero, timeout: .seconds(2)))
        }
        #expect(elapsed < Self.slack)
        #expect(result.failure == .refused)
        #expect(result.exchanges.map(\.outcome) == [.refused])
    }

    /// In a sync, the refused source is reported as such without holding up the good one.
    @Test func aSyncWithARefusedSourceUsesTheOtherAtOnce() async throws {
        let good = try Self.server()
        defer { good.stop() }
        let closed = try Self.closedAddress()
        let query = QueryOptions(samples: 2, interval: .zero, timeout: .seconds(2))
        let servers = [Self.name(good), ServerName(host: closed.host, port: closed.port)]
        let start = Self.clock.now()
        let report = try await NTPSyncEngine(policy: Self.policy(servers, query: query)).sync()
        #expect(Self.elapsed(since: start) < Self.asyncSlack)
        Self.expectCorrect(report)
        #expect(report.servers.map(\.status) == [.selected, .refused])

        let alone = Self.clock.now()
        let error = await #expect(throws: SyncError.self) {
            try await NTPSyncEngine(policy: Self.policy([servers[1]], query: query)).sync()
        }
        #expect(error?.servers.map(\.status) == [.refused])
        #expect(Self.elapsed(since: alone) < Self.asyncSlack)
    }

    // MARK: DNS failure

    /// A name under `.invalid` (RFC 6761: never resolves) fails resolution with a typed error, and a
    /// sync reports it as that source's error while using the other source. The resolver is the
    /// system's; 2 s bounds it here, where a failed lookup takes milliseconds.
    @Test func anUnresolvableNameIsAnErrorNotAHang() async throws {
        let bad = "ntp.networkclock-test.invalid"
        let (resolved, resolving) = await timedOnOwnThread {
            Result { () throws(TransportError) in try Resolver.resolve(bad, port: 123) }
        }
        let resolution = #expect(throws: TransportError.self) { try resolved.get() }
        switch resolution {
        case .resolutionFailed(let host, _), .noAddresses(let host): #expect(host == bad)
        default: Issue.record("expected a resolution failure, got \(String(describing: resolution))")
        }
        #expect(resolving < .seconds(2))

        let good = try Self.server()
        defer { good.stop() }
        let query = QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(500))
        var start = Self.clock.now()
        let report = try await NTPSyncEngine(
            policy: Self.policy([ServerName(host: bad, port: 123), Self.name(good)], query: query)
        ).sync()
        #expect(Self.elapsed(since: start) < .seconds(2))
        Self.expectCorrect(report)
        #expect(report.servers.map(\.status) == [.error, .selected])
        #expect(report.servers[0].address == nil)
        #expect(report.servers[0].reason?.contains(bad) == true)

        start = Self.clock.now()
        let error = await #expect(throws: SyncError.self) {
            try await NTPSyncEngine(policy: Self.policy([ServerName(host: bad, port: 123)], query: query))
                .sync()
        }
        #expect(error?.servers.map(\.status) == [.error])
        #expect(Self.elapsed(since: start) < .seconds(2))
    }

    // MARK: An HTTP server that stalls mid-headers

    /// The server sends one byte of its response head, then pauses 5 s (longer than the whole
    /// measurement may take): the measurement fails with a timeout at its per-request timeout,
    /// within its deadline.
    @Test func anHTTPServerStallingMidHeadersTimesOutWithinTheDeadline() async throws {
        let server = try HTTPTimeServer(
            configuration: .init(offset: Self.truth, misbehaviour: .slowHeaders(pause: .seconds(5))))
        defer { server.stop() }
        let url = try #require(URL(string: server.urlString))
        let requestTimeout = Duration.milliseconds(400)
        let deadline = Duration.milliseconds(600)
        let source = HTTPTimeClient(
            configuration: .init(maximumRequests: 1, requestTimeout: requestTimeout, deadline: deadline))
        let start = Self.clock.now()
        do {
            let measurement = try await source.measure(url)
            Issue.record("a stalled response gave a measurement: \(measurement.offset)")
        } catch {
            #expect(error.code == .timeout, "\(error)")
        }
        let elapsed = Self.elapsed(since: start)
        #expect(elapsed >= requestTimeout)
        #expect(elapsed < deadline + Self.asyncSlack, "took \(elapsed)")
    }

    /// NTP silent and the HTTP fallback stalling mid-headers: the whole sync fails within its one
    /// overall deadline, naming both failures.
    @Test func aSyncWithSilentNTPAndAStalledHTTPFallbackFailsWithinItsDeadline() async throws {
        let ntp = try Self.server(.noReply)
        defer { ntp.stop() }
        let http = try HTTPTimeServer(
            configuration: .init(offset: Self.truth, misbehaviour: .slowHeaders(pause: .seconds(5))))
        defer { http.stop() }
        let url = try #require(URL(string: http.urlString))
        let query = QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(100))
        let deadline = Duration.milliseconds(1_000)
        let engine = TimeSyncEngine(
            ntp: NTPSyncEngine(policy: Self.policy([Self.name(ntp)], query: query)), httpURLs: [url],
            http: HTTPTimeClient(configuration: .init(maximumRequests: 1, requestTimeout: .seconds(3))),
            deadline: deadline)
        let start = Self.clock.now()
        do {
            let report = try await engine.sync()
            Issue.record("a sync with no usable source succeeded: \(report.offset)")
        } catch {
            #expect(error.servers.map(\.kind) == [.ntp, .http])
            #expect(error.servers.map(\.status) == [.timeout, .error])
            #expect(error.servers.last?.errorCode == HTTPTimeError.Code.timeout.rawValue)
        }
        let elapsed = Self.elapsed(since: start)
        #expect(elapsed < deadline + Self.asyncSlack, "took \(elapsed)")
    }
}

/// Runs blocking work (an `SNTPClient` burst waits in poll(2)) on a thread of its own and awaits its
/// result, so that it does not hold one of Swift concurrency's cooperative threads — on this 2-core
/// machine there are two, and tests running in parallel, the sync engine's continuations among
/// them, need them.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// ``onOwnThread(_:)``, also returning how long `body` took, measured on its thread: what the code
/// under test took, without the wait for a cooperative thread to resume the test afterwards.
func timedOnOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> (T, Duration) {
    await onOwnThread {
        let clock = BootTimeClock()
        let start = clock.now()
        let value = body()
        return (value, clock.now() - start)
    }
}

/// |a − b|.
private func gap(_ a: Duration, _ b: Duration) -> Duration { a > b ? a - b : b - a }

extension ExchangeRecord.Outcome {
    fileprivate var isSample: Bool {
        if case .sample = self { return true }
        return false
    }
}
