import Foundation
import LoopbackServers
import LoopbackTestSupport
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

/// The multi-source sync engine against several loopback fake servers.
///
/// Tolerance: every server shares this machine's clock, so the truth is the configured offset, and
/// a correct combination contains it within its error bound; that bound is capped at 200 ms, which
/// still separates a correct combination from one that let a liar pull the result (a liar here is
/// seconds away). A fixed 2 ms (half an idle loopback round trip, with room) failed when load
/// stretched round trips.
@Suite(.serialized, .wallClockReference)
struct SyncEngineTests {
    static let fast = QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(500))

    static func servers(_ offsets: [Duration], host: String = "127.0.0.1") throws -> [FakeNTPServer] {
        try offsets.map {
            try FakeNTPServer(configuration: FakeNTPServer.Configuration(host: host, offset: $0))
        }
    }

    static func policy(_ servers: [FakeNTPServer], query: QueryOptions = fast, deadline: Duration? = nil)
        -> SyncPolicy
    {
        SyncPolicy(
            servers: servers.map { ServerName(host: $0.host, port: $0.port) }, query: query,
            deadline: deadline)
    }

    @Test func threeHonestServersOutvoteALiar() async throws {
        let truth = Duration.milliseconds(420)
        let servers = try Self.servers([truth, truth, truth, truth + .seconds(5)])
        defer { servers.forEach { $0.stop() } }
        let report = try await NTPSyncEngine(policy: Self.policy(servers)).sync()
        // Bound-based, not a fixed 2 ms: see the suite's comment.
        #expect(report.errorBound < .milliseconds(200), "offset \(report.offset) ± \(report.errorBound)")
        #expect(report.servers.map(\.status).filter { $0 == .falseticker }.count == 1)
        #expect(report.servers[3].status == .falseticker)
        #expect(report.servers[3].reason?.contains("majority") == true)
        #expect(report.agreeingSources == 3)
        #expect(abs(report.offset - truth) <= report.errorBound + .microseconds(50))
        #expect(report.source == .ntp)
    }

    @Test func twoAgainstTwoIsNoMajority() async throws {
        let servers = try Self.servers([.zero, .zero, .seconds(3), .seconds(3)])
        defer { servers.forEach { $0.stop() } }
        await #expect(throws: SyncError.self) { try await NTPSyncEngine(policy: Self.policy(servers)).sync() }
        do {
            _ = try await NTPSyncEngine(policy: Self.policy(servers)).sync()
        } catch {
            guard error.code == .noMajority else {
                Issue.record("expected no majority, got \(error)")
                return
            }
            #expect(error.majorityFailure == .noMajority(sources: 4, largestAgreement: 2))
            #expect(error.servers.count == 4)
            #expect(error.description.contains("no majority"))
        }
    }

    @Test func aDeadServerDoesNotDelayTheResultPastTheDeadline() async throws {
        let servers = try Self.servers([.seconds(1), .seconds(1), .seconds(1)])
        servers[2].update { $0.behaviour = .noReply }
        defer { servers.forEach { $0.stop() } }
        let clock = BootTimeClock()
        let start = clock.now()
        let query = QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(300))
        let report = try await NTPSyncEngine(
            policy: Self.policy(servers, query: query, deadline: .milliseconds(800))
        ).sync()
        // The deadline (0.8 s) plus 1 s for scheduling on a loaded machine (was 1.5 s in all).
        #expect(clock.now() - start < .milliseconds(800) + .seconds(1))
        #expect(report.servers[2].status == .timeout)
        // Bound-based, not a fixed 2 ms: see the suite's comment.
        #expect(abs(report.offset - .seconds(1)) <= report.errorBound + .microseconds(50))
        #expect(report.errorBound < .milliseconds(200))
    }

    @Test func enoughSourcesReturnEarly() async throws {
        let servers = try Self.servers([.zero, .zero, .zero])
        servers[2].update { $0.behaviour = .noReply }
        defer { servers.forEach { $0.stop() } }
        var policy = Self.policy(
            servers, query: QueryOptions(samples: 1, interval: .zero, timeout: .seconds(3)))
        policy.minimumSources = 2
        let clock = BootTimeClock()
        let start = clock.now()
        let report = try await NTPSyncEngine(policy: policy).sync()
        // The point: no wait for the silent server's 3 s timeout; 2 s (was 1 s) leaves room for a
        // loaded machine and is still a second short of it.
        #expect(clock.now() - start < .seconds(2), "did not wait for the silent server's 3 s timeout")
        #expect(report.servers[2].status == .timeout)
        #expect(report.agreeingSources == 2)
    }

    /// `localhost` is resolved to every address it has here, and each address is a source: one
    /// (127.0.0.1) where `/etc/hosts` maps it to IPv4 only, two where it maps it to ::1 as well.
    @Test func localhostIsQueriedOnEveryAddressItResolvesTo() async throws {
        let families = LoopbackEnvironment.localhostFamilies
        try #require(families.contains(.ipv4), "localhost does not resolve to 127.0.0.1 here")
        let v4 = try FakeNTPServer(
            configuration: FakeNTPServer.Configuration(host: "127.0.0.1", offset: .seconds(2)))
        defer { v4.stop() }
        // Where localhost also means ::1, bind ::1 on the same port number so `localhost:PORT`
        // reaches both. (A hosts file may name ::1 on a machine without IPv6: that address is still
        // a source, one that fails.)
        let v6Usable = families.contains(.ipv6) && LoopbackEnvironment.ipv6LoopbackAvailable
        let v6 =
            v6Usable
            ? try FakeNTPServer(
                configuration: FakeNTPServer.Configuration(host: "::1", port: v4.port, offset: .seconds(2)))
            : nil
        defer { v6?.stop() }
        let policy = SyncPolicy(servers: [ServerName(host: "localhost", port: v4.port)], query: Self.fast)
        let report = try await NTPSyncEngine(policy: policy).sync()
        #expect(report.servers.count == families.count)
        #expect(Set(report.servers.compactMap { $0.ntp?.address?.family }) == families)
        #expect(report.agreeingSources == (v6Usable ? 2 : 1))
        #expect(v4.requestCount == 2)
        #expect(v6.map { $0.requestCount == 2 } ?? true)
    }

    /// Debian's standard /etc/hosts maps `localhost` to 127.0.0.1 and ::1; other machines map it to
    /// 127.0.0.1 only, where this test is skipped (the test above covers them).
    @Test(.enabled(if: LoopbackEnvironment.localhostReachesIPv6, localhostWithoutIPv6))
    func localhostResolvesToBothFamilies() async throws {
        let v4 = try FakeNTPServer(
            configuration: FakeNTPServer.Configuration(host: "127.0.0.1", offset: .seconds(2)))
        defer { v4.stop() }
        // Bind ::1 on the same port number so `localhost:PORT` reaches both.
        let v6 = try FakeNTPServer(
            configuration: FakeNTPServer.Configuration(host: "::1", port: v4.port, offset: .seconds(2)))
        defer { v6.stop() }
        let addresses = try Resolver.resolve("localhost", port: v4.port)
        #expect(Set(addresses.map(\.family)) == [.ipv4, .ipv6])
        let policy = SyncPolicy(servers: [ServerName(host: "localhost", port: v4.port)], query: Self.fast)
        let report = try await NTPSyncEngine(policy: policy).sync()
        #expect(report.servers.count == 2)
        #expect(Set(report.servers.compactMap { $0.ntp?.address?.family }) == [.ipv4, .ipv6])
        #expect(report.agreeingSources == 2)
        #expect(v4.requestCount == 2 && v6.requestCount == 2)
    }

    @Test func denyDropsTheSourceForTheEngineLifetime() async throws {
        let servers = try Self.servers([.zero, .zero, .zero])
        servers[0].update { $0.behaviour = .kissOfDeath(code: "DENY") }
        defer { servers.forEach { $0.stop() } }
        let engine = NTPSyncEngine(
            policy: Self.policy(
                servers, query: QueryOptions(samples: 4, interval: .zero, timeout: .milliseconds(300))))
        let first = try await engine.sync()
        #expect(first.servers[0].status == .kissOfDeath)
        #expect(servers[0].requestCount == 1, "the burst stopped after DENY")
        let second = try await engine.sync()
        #expect(second.servers[0].status == .skipped)
        #expect(servers[0].requestCount == 1, "no packet after DENY")
        #expect(servers[1].requestCount == 8)
    }

    @Test func rateBacksOffAndSpacingIsKept() async throws {
        let servers = try Self.servers([.zero, .zero])
        servers[0].update { $0.behaviour = .kissOfDeath(code: "RATE") }
        defer { servers.forEach { $0.stop() } }
        let query = QueryOptions(samples: 3, interval: .milliseconds(100), timeout: .milliseconds(300))
        let engine = NTPSyncEngine(policy: Self.policy(servers, query: query), rateBackoff: .seconds(30))
        let first = try await engine.sync()
        #expect(first.servers[0].status == .kissOfDeath)
        let second = try await engine.sync()
        #expect(second.servers[0].status == .skipped)
        #expect(second.servers[0].reason?.contains("backing off") == true)
        #expect(servers[0].requestCount == 1)
        // The honest server saw two bursts of three, each packet 100 ms after the previous. The
        // server stamps a packet when its thread wakes: on a loaded 2-core machine that can be tens
        // of milliseconds late, which shortens the next gap by as much (88 ms was seen). A client
        // that ignored the spacing would send back to back, well under 70 ms apart.
        let times = servers[1].requests.map(\.receivedAtMonotonic)
        #expect(times.count == 6)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier >= .milliseconds(70), "spacing \(later - earlier)")
        }
    }

    @Test(arguments: NetworkClock.CombineMethod.allCases)
    func everyCombineMethodContainsTheTruth(method: NetworkClock.CombineMethod) async throws {
        let truth = Duration.milliseconds(-250)
        var servers: [FakeNTPServer] = []
        for seed in 1...4 {
            var configuration = FakeNTPServer.Configuration(offset: truth)
            configuration.seed = UInt64(seed)
            configuration.outboundDelay = .exponential(mean: .milliseconds(4))
            configuration.returnDelay = .uniform(.zero, .milliseconds(2))
            servers.append(try FakeNTPServer(configuration: configuration))
        }
        defer { servers.forEach { $0.stop() } }
        var policy = Self.policy(
            servers, query: QueryOptions(samples: 3, interval: .zero, timeout: .seconds(1)))
        policy.combine = method
        let report = try await NTPSyncEngine(policy: policy).sync()
        #expect(abs(report.offset - truth) <= report.errorBound + .microseconds(50))
        // Was: within 10 ms of the truth; the bound above is the physical guarantee, and a bound
        // under 200 ms still shows the combination used the loopback samples (see the suite).
        #expect(report.errorBound < .milliseconds(200))
    }
}
