import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

/// The sync engine with NTS servers beside plain ones: who may decide the time under each
/// ``NetworkClock/NTSMode``, and what the report says about authentication.
///
/// The NTS server's clock is 1.5 s ahead, the plain one's 1.5 s too (so `mix` can combine them) or
/// 7 s ahead (a liar the NTS source must not be outvoted by); offsets are checked against each
/// result's own bound.
@Suite(
    .enabled(if: TestCertificates.runnable, "the openssl command is not installed"), .serialized,
    .wallClockReference)
struct NTSPolicyTests {
    /// The fake servers' clocks are this machine's wall clock plus the offset, while our stamps are
    /// boot-time readings mapped to the wall clock once per burst. The pairing of the two readings
    /// can be off by a preemption between them (the mapping keeps the tightest of a few tries, but
    /// a loaded 2-core machine can still stall one), so offsets against the wall clock get 1 ms
    /// beyond their bound. Every bound on the boot-time line holds without it.
    static let wallMapping: Duration = .milliseconds(1)

    static let fast = QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(300))
    static let truth = Duration.milliseconds(1500)

    static func nts(_ behaviour: FakeNTSServer.Behaviour = .normal) throws -> (
        FakeNTSServer, TestCertificates
    ) {
        let certificates = try TestCertificates.require()
        let server = try FakeNTSServer(
            configuration: .init(certificates: certificates, offset: truth, behaviour: behaviour))
        return (server, certificates)
    }

    static func plain(offset: Duration = truth) throws -> FakeNTPServer {
        try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: offset))
    }

    static func engine(
        nts: FakeNTSServer, plain: FakeNTPServer, certificates: TestCertificates, mode: NetworkClock.NTSMode
    ) -> NTPSyncEngine {
        var policy = SyncPolicy(
            servers: [.nts(nts.host, port: nts.kePort), ServerName(host: plain.host, port: plain.port)],
            query: fast)
        policy.ntsMode = mode
        policy.trustRoots = .certificateFile(certificates.caFile)
        return NTPSyncEngine(policy: policy)
    }

    @Test func requireLetsOnlyTheNTSSourceDecideEvenAgainstADisagreeingPlainOne() async throws {
        let (nts, certificates) = try Self.nts()
        let plain = try Self.plain(offset: .seconds(7))
        defer {
            nts.stop()
            plain.stop()
        }
        let report = try await Self.engine(nts: nts, plain: plain, certificates: certificates, mode: .require)
            .sync()
        #expect(report.isAuthenticated)
        #expect(abs(report.offset - Self.truth) <= report.errorBound + Self.wallMapping, "\(report)")
        let ntsSource = try #require(report.servers.first { $0.kind == .nts })
        let plainSource = try #require(report.servers.first { $0.kind == .ntp })
        #expect(ntsSource.status == .selected && ntsSource.isAuthenticated)
        #expect(ntsSource.ntp?.nts?.aead == 15 && ntsSource.ntp?.nts?.keyExchanges == 1)
        #expect(plainSource.status == .unauthenticated && !plainSource.isAuthenticated)
        #expect(plainSource.reason?.contains("require") == true)
        // The anchor it gives is authenticated, and so is the clock's estimate.
        #expect(report.anchor.isAuthenticated)
    }

    @Test func requireWithAFailingNTSSourceGivesNoTimeRatherThanUnauthenticatedTime() async throws {
        let (nts, certificates) = try Self.nts(.badAuthenticator)
        let plain = try Self.plain()
        defer {
            nts.stop()
            plain.stop()
        }
        let engine = Self.engine(nts: nts, plain: plain, certificates: certificates, mode: .require)
        // HTTP cannot stand in either. The two syncs at once: each waits out the NTS source's
        // timeouts on its own.
        let fallback = TimeSyncEngine(ntp: engine, httpURLs: [URL(string: "http://127.0.0.1:9/")!])
        let alone = Task { () async throws(SyncError) -> SyncReport in try await engine.sync() }
        let withHTTP = Task { () async throws(SyncError) -> SyncReport in try await fallback.sync() }
        switch await alone.result {
        case .success(let report): Issue.record("unauthenticated time decided under require: \(report)")
        case .failure(let error):
            let error = try #require(error as? SyncError, "\(error)")
            let ntsSource = try #require(error.servers.first { $0.kind == .nts })
            #expect(ntsSource.status == .rejected)
            #expect(ntsSource.reason?.contains("authenticator") == true)
            #expect(error.servers.first { $0.kind == .ntp }?.status == .unauthenticated)
        }
        switch await withHTTP.result {
        case .success(let report): Issue.record("an unauthenticated fallback decided the time: \(report)")
        case .failure(let error):
            let error = try #require(error as? SyncError, "\(error)")
            #expect(error.servers.first { $0.http != nil }?.status == .unauthenticated)
        }
    }

    @Test func preferFallsBackToPlainSourcesOnlyWhenNoNTSSourceAnswers() async throws {
        let (good, certificates) = try Self.nts()
        let (bad, _) = try Self.nts(.badAuthenticator)
        let plain = try Self.plain(offset: .seconds(7))
        defer {
            good.stop()
            bad.stop()
            plain.stop()
        }
        let withNTS = try await Self.engine(
            nts: good, plain: plain, certificates: certificates, mode: .prefer
        ).sync()
        #expect(
            withNTS.isAuthenticated
                && abs(withNTS.offset - Self.truth) <= withNTS.errorBound + Self.wallMapping)
        #expect(withNTS.servers.first { $0.kind == .ntp }?.status == .unauthenticated)

        let without = try await Self.engine(nts: bad, plain: plain, certificates: certificates, mode: .prefer)
            .sync()
        #expect(!without.isAuthenticated)
        #expect(abs(without.offset - .seconds(7)) <= without.errorBound + Self.wallMapping)
        #expect(without.anchor.isAuthenticated == false)
    }

    @Test func mixCombinesBothAndIsNotAuthenticated() async throws {
        let (nts, certificates) = try Self.nts()
        let plain = try Self.plain()
        defer {
            nts.stop()
            plain.stop()
        }
        let report = try await Self.engine(nts: nts, plain: plain, certificates: certificates, mode: .mix)
            .sync()
        #expect(!report.isAuthenticated)
        #expect(report.agreeingSources == 2)
        #expect(abs(report.offset - Self.truth) <= report.errorBound + Self.wallMapping)
    }

    @Test func theFacadeGivesAuthenticatedTimeAndARestartedClockSpendsTheKeptCookies() async throws {
        let (nts, certificates) = try Self.nts()
        defer { nts.stop() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netclock-nts-facade-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = NetworkClock.Configuration(
            servers: [.nts(nts.host, port: nts.kePort)], query: Self.fast,
            store: AnchorStore(path: directory + "/anchor.json"),
            trustRoots: .certificateFile(certificates.caFile))
        let first = NetworkClock(configuration: configuration)
        let report = try await first.sync()
        #expect(report.isAuthenticated)
        let estimate = try #require(first.now())
        #expect(estimate.isAuthenticated)
        #expect(estimate.description.contains("authenticated"))
        #expect(nts.statistics.keHandshakes == 1)

        // A new process of the same boot: the anchor and the NTS cookies come back from the store.
        let second = NetworkClock(configuration: configuration)
        #expect(second.now()?.isAuthenticated == true)
        let again = try await second.sync()
        #expect(again.isAuthenticated)
        #expect(again.servers.first?.ntp?.nts?.keyExchanges == 0)
        #expect(nts.statistics.keHandshakes == 1)
    }

    /// Sticky authentication in the facade (issue 18): once the anchor came from NTS, a sync where
    /// only an unauthenticated source answers (the NTS server went silent; `prefer` lets the plain
    /// one decide) is a downgrade. Without permission it throws `unauthenticated_only`; with it
    /// the report says so and the authenticated anchor still stays where it was.
    @Test(arguments: [false, true])
    func aDowngradeNeverMovesTheAuthenticatedAnchor(allowed: Bool) async throws {
        let (nts, certificates) = try Self.nts()
        let plain = try Self.plain(offset: .seconds(7))
        defer {
            nts.stop()
            plain.stop()
        }
        let configuration = NetworkClock.Configuration(
            servers: [.nts(nts.host, port: nts.kePort), ServerName(host: plain.host, port: plain.port)],
            query: Self.fast, ntsMode: .prefer, trustRoots: .certificateFile(certificates.caFile),
            allowsDowngrade: allowed)
        let clock = NetworkClock(configuration: configuration)
        let first = try await clock.sync()
        #expect(first.isAuthenticated && !first.isDowngraded)
        let anchored = try #require(clock.clock.anchor)
        #expect(anchored.isAuthenticated)

        nts.stop()
        do {
            let report = try await clock.sync()
            #expect(allowed, "a downgrade was accepted without permission: \(report)")
            // The sync's evidence was a downgrade; the clock's trusted time, which the report's
            // top level gives, is still the authenticated anchor, and the plain source 7 s off
            // contradicts it.
            #expect(report.isDowngraded && report.isAuthenticated)
            #expect(report.anchorUpdate == .keptAuthenticated)
            #expect(abs(report.offset - Self.truth) <= report.errorBound + Self.wallMapping)
            let source = report.servers.first { $0.kind == .ntp }
            #expect(source?.status == .contradictsAuthenticated, "\(report.servers)")
            #expect(abs((source?.offset ?? .zero) - .seconds(7)) <= Self.wallMapping + .milliseconds(10))
        } catch {
            #expect(!allowed, "an allowed downgrade failed: \(error)")
            #expect(error.code == .unauthenticatedOnly)
            #expect(error.reason.contains("unauthenticated"))
        }
        #expect(clock.clock.anchor == anchored, "the authenticated anchor moved")
        let estimate = try #require(clock.now())
        #expect(estimate.isAuthenticated)
        #expect(
            abs(estimate.offset(from: SystemWallClock().now()) - Self.truth) <= estimate.errorBound
                + Self.wallMapping)
    }
}
