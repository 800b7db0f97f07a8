import LoopbackServers
import NetClockPlatform
import SNTP
import Synchronization
import NetClockTestSupport
import Testing
import TimeValues
import TimeDoubles

@testable import NetworkClock
import WallClockReference

/// The background refresh sleeps on an injected clock: on a ``ManualClock`` the schedule — a sync
/// at once, exponential backoff with jitter after failures, the jittered period after a success —
/// is checked by advancing time by hand and counting syncs, never by measuring wall time.
@Suite(.serialized, .wallClockReference)
struct RefreshScheduleClockTests {
    static let policy = NetworkClock.RefreshPolicy(
        interval: .seconds(1024), jitter: 0.25, minimumInterval: .seconds(1), initialBackoff: .seconds(64),
        maximumBackoff: .seconds(3600))

    /// Moves `clock` to 1 ms before the loop's pending deadline and checks, at once, that the loop
    /// still sleeps on that same deadline. No wall-clock wait is needed: ``ManualClock/advance(by:)``
    /// removes a sleeper it wakes before it returns, and the loop can only sync after its sleep
    /// returns (and would then sleep again on a later deadline), so an unchanged pending deadline
    /// proves nothing ran early.
    static func expectStillAsleepJustBefore(
        _ delay: Duration, on clock: ManualClock, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let deadline = clock.pendingDeadlines
        clock.advance(by: delay - .milliseconds(1))
        #expect(clock.pendingDeadlines == deadline, "the loop woke early", sourceLocation: sourceLocation)
    }

    /// Waits until the refresh loop sleeps on `clock` and returns how long it sleeps.
    static func sleepingDelay(on clock: ManualClock) async throws -> Duration {
        let sleeping = await eventually { clock.sleeperCount == 1 }
        try #require(sleeping, "the refresh loop never went to sleep")
        return try #require(clock.pendingDeadlines.first).offset - clock.now.offset
    }

    @Test func backoffAfterFailuresThenThePeriodAfterASuccess() async throws {
        // The first two requests go unanswered (failed syncs), the third is answered.
        var configuration = FakeNTPServer.Configuration()
        configuration.nextBehaviours = [.noReply, .noReply]
        let server = try FakeNTPServer(configuration: configuration)
        defer { server.stop() }
        let manual = ManualClock()
        let clock = NetworkClock(
            configuration: NetworkClock.Configuration(
                servers: [ServerName(host: server.host, port: server.port)],
                query: QueryOptions(samples: 1, interval: .zero, timeout: .milliseconds(100)),
                refresh: Self.policy),
            hardware: .system, nonces: SystemNonceSource(), refreshClock: manual)
        let log = ClockEventLog(clock)
        clock.start(lifecycleReadings: nil)

        // No anchor: the first sync runs at once, fails, and the loop backs off 64 s × [0.5, 1].
        let first = try await Self.sleepingDelay(on: manual)
        #expect(
            await eventually {
                log.failures == 1 && log.syncs == 0 && log.backoffs.count == 1
            })
        #expect(log.backoffs.map(\.delay) == [first])
        #expect(first >= .seconds(32) && first <= .seconds(64), "\(first)")

        // Not before the backoff delay...
        Self.expectStillAsleepJustBefore(first, on: manual)
        #expect(log.failures == 1, "a sync ran before the backoff delay had passed")
        // ...but right at it; the second failure doubles the backoff (128 s × [0.5, 1]).
        manual.advance(by: .milliseconds(1))
        let second = try await Self.sleepingDelay(on: manual)
        #expect(
            await eventually {
                log.failures == 2 && log.syncs == 0 && log.backoffs.count == 2
            })
        #expect(log.backoffs.last?.failures == 2)
        #expect(second >= .seconds(64) && second <= .seconds(128), "\(second)")

        // The third sync succeeds: the next one is the jittered period, 1024 s × [0.75, 1.25].
        manual.advance(by: second)
        let period = try await Self.sleepingDelay(on: manual)
        #expect(await eventually { log.syncs == 1 && log.failures == 2 })
        #expect(log.backoffs.count == 2, "a success is not followed by a backoff")
        #expect(period >= .seconds(768) && period <= .seconds(1280), "\(period)")
        Self.expectStillAsleepJustBefore(period, on: manual)
        #expect(log.syncs == 1, "a sync ran before the period had passed")

        // Stopping cancels the sleep; nothing runs afterwards, whatever the clock does.
        clock.stop()
        let stopped = await eventually { manual.sleeperCount == 0 }
        #expect(stopped)
        manual.advance(by: .seconds(100_000))
        #expect(manual.sleeperCount == 0)
        // The one wall-clock wait left: a loop that ignored its cancellation would sync on real
        // time, not on the manual clock, so only real time can show it (50 ms is tens of loopback
        // syncs).
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.syncs == 1 && log.failures == 2)
        #expect(server.requests.count == 3)
    }

    @Test func aRecentAnchorDelaysTheFirstSyncByTheRestOfThePeriod() async throws {
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        let manual = ManualClock()
        let clock = NetworkClock(
            configuration: NetworkClock.Configuration(
                servers: [ServerName(host: server.host, port: server.port)],
                query: QueryOptions(samples: 1, interval: .zero, timeout: .milliseconds(200)),
                refresh: Self.policy),
            hardware: .system, nonces: SystemNonceSource(), refreshClock: manual)
        _ = try await clock.sync()
        let log = ClockEventLog(clock)
        clock.start(lifecycleReadings: nil)
        let delay = try await Self.sleepingDelay(on: manual)
        // The anchor is fresh: the loop waits (about) the whole period before its first sync.
        #expect(delay > .seconds(1020) && delay <= .seconds(1024), "\(delay)")
        Self.expectStillAsleepJustBefore(delay, on: manual)
        #expect(log.syncs == 0)
        manual.advance(by: .milliseconds(1))
        let next = try await Self.sleepingDelay(on: manual)
        #expect(await eventually { log.syncs == 1 })
        #expect(next >= .seconds(768) && next <= .seconds(1280), "\(next)")
        clock.stop()
    }
}
