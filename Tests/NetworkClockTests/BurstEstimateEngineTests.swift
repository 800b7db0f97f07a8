import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

/// Each source votes with the intersection of its burst's intervals; a source whose samples
/// contradict each other is `inconsistent` and does not vote.
///
/// Tolerance: every fake server shares this machine's clock, so the truth is its configured offset
/// and each sample's interval contains it exactly; the only slack is the 50 µs allowed for mapping
/// the wall clock to the boot-time clock once per burst (as in ``SyncEngineTests``).
@Suite(.serialized, .wallClockReference)
struct BurstEstimateEngineTests {
    static let mapping = Duration.microseconds(50)

    static func server(offset: Duration, _ configure: (inout FakeNTPServer.Configuration) -> Void = { _ in })
        throws -> FakeNTPServer
    {
        var configuration = FakeNTPServer.Configuration(offset: offset)
        configure(&configuration)
        return try FakeNTPServer(configuration: configuration)
    }

    static func policy(_ servers: [FakeNTPServer], samples: Int) -> SyncPolicy {
        SyncPolicy(
            servers: servers.map { ServerName(host: $0.host, port: $0.port) },
            query: QueryOptions(samples: samples, interval: .zero, timeout: .seconds(1)))
    }

    /// Outbound exponential (mean 8 ms), return uniform 1–20 ms, seeded: the fastest outbound and
    /// the fastest return leg fall in different packets often enough that the intersection is
    /// tighter than the minimum-delay sample alone; it must still contain the truth.
    @Test func theIntersectionContainsTheTruthAndIsNoLooserThanTheBestSample() async throws {
        let truth = Duration.milliseconds(-2750)
        let server = try Self.server(offset: truth) {
            $0.seed = 77
            $0.outboundDelay = .exponential(mean: .milliseconds(8))
            $0.returnDelay = .uniform(.milliseconds(1), .milliseconds(20))
        }
        defer { server.stop() }
        let report = try await NTPSyncEngine(policy: Self.policy([server], samples: 8)).sync()
        let source = try #require(report.servers.first)
        #expect(source.status == .selected)
        let estimate = try #require(source.ntp?.estimate)
        let best = try #require(source.ntp?.best)
        let samples = try #require(source.ntp?.query?.samples)
        #expect(estimate.method == .intersection)
        #expect(estimate.sampleCount == samples.count)
        #expect(estimate.interval.instant == samples.map(\.receivedAt).max())
        // The truth is inside the intersection.
        let bound = estimate.interval.radius
        let error = abs(estimate.interval.midpoint - estimate.localTime - truth)
        #expect(error <= bound + Self.mapping, "error \(error) bound \(bound)")
        // Never looser than the best sample's own interval, aged to the same instant.
        let aged = best.interval.aged(to: estimate.interval.instant, tolerancePPM: best.frequencyTolerancePPM)
            .radius
        #expect(bound <= aged, "intersection ±\(bound) vs best ±\(aged)")
        // One source: the sync's result is that source's estimate, as one time and bound (the
        // midpoint rounded down to a nanosecond, the bound up to reach both ends).
        #expect(report.errorBound == estimate.interval.pointEstimate.bound)
        #expect(report.errorBound >= bound && report.errorBound <= bound + .nanoseconds(2))
        #expect(report.monotonic == estimate.interval.instant)
        #expect(abs(report.offset - truth) <= report.errorBound + Self.mapping)
    }

    /// The third server steps its clock 1 s forward after its second request: its four samples
    /// cannot all hold, so it is `inconsistent`, named by one sample from before the step and one
    /// from after, and the two honest servers decide alone.
    @Test func aServerThatStepsWithinTheBurstIsInconsistentAndDoesNotVote() async throws {
        let truth = Duration.milliseconds(420)
        let servers = [
            try Self.server(offset: truth), try Self.server(offset: truth),
            try Self.server(offset: truth) {
                $0.nextBehaviours = [.normal, .normal]
                $0.behaviour = .steppedClock(by: .seconds(1))
            },
        ]
        defer { servers.forEach { $0.stop() } }
        let report = try await NTPSyncEngine(policy: Self.policy(servers, samples: 4)).sync()
        let stepped = report.servers[2]
        #expect(stepped.status == .inconsistent)
        #expect(stepped.ntp?.estimate == nil)
        guard case .failure(let inconsistency) = stepped.ntp?.query?.estimate else {
            Issue.record("expected an inconsistency, got \(String(describing: stepped.ntp?.query?.estimate))")
            return
        }
        #expect([1, 2].contains(inconsistency.firstRequest))
        #expect([3, 4].contains(inconsistency.secondRequest))
        // 1 s apart, less both samples' bounds (well under 100 ms on loopback).
        #expect(inconsistency.gap > .milliseconds(900) && inconsistency.gap < .seconds(1))
        #expect(stepped.reason == inconsistency.description)
        #expect(report.agreeingSources == 2)
        #expect(!report.servers.contains { $0.status == .falseticker })
        #expect(abs(report.offset - truth) <= report.errorBound + Self.mapping)
    }

    @Test func aLoneInconsistentSourceGivesNoTime() async throws {
        let server = try Self.server(offset: .zero) {
            $0.nextBehaviours = [.normal]
            $0.behaviour = .steppedClock(by: .seconds(-3))
        }
        defer { server.stop() }
        do {
            let report = try await NTPSyncEngine(policy: Self.policy([server], samples: 2)).sync()
            Issue.record("expected no usable source, got \(report)")
        } catch {
            #expect(error.code == .noUsableSource)
            #expect(error.servers.first?.status == .inconsistent)
            #expect(error.reason.contains("requests 1 and 2 of the burst contradict each other"))
        }
    }
}
