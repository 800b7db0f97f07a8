import Testing
import TimeValues
import NetClockPlatform

@testable import NetworkClock

/// The demand-driven schedule (``RefreshSchedule``, with ``NetworkClock/RefreshPolicy/maximumBound``)
/// on fixed bound curves: a sync is due just before the bound would reach the app's need, jittered
/// only earlier, never sooner than the minimum interval, and a sync that cannot meet the need backs
/// off as a failure does.
@Suite struct DemandScheduleTests {
    /// A bound of 10 ms growing at 6 ppm, as an oscillator measured to ±6 ppm.
    static func sixPPM(_ later: Duration) -> Duration? { .milliseconds(10) + later * 6e-6 }

    static let policy = NetworkClock.RefreshPolicy.demand(maximumBound: .milliseconds(100))

    /// A wait on the sleeper's clock, which may run 500 ppm slower than the time base.
    static let sleeperRate = 1 - 500e-6

    @Test func theTimeWithinTheNeedIsWhereTheBoundReachesIt() throws {
        // (100 − 10) ms at 6 ppm: 15,000 s on the time base, 7.5 s less on the sleeper's clock.
        let within = try #require(RefreshSchedule.timeWithin(.milliseconds(100), boundAfter: Self.sixPPM))
        #expect(abs(within - .seconds(15_000) * Self.sleeperRate) <= .milliseconds(1), "\(within)")
        #expect(RefreshSchedule.timeWithin(.milliseconds(5), boundAfter: Self.sixPPM) == nil)
        #expect(RefreshSchedule.timeWithin(.milliseconds(100), boundAfter: { _ in nil }) == nil)
        // A bound that barely grows: a day at the most.
        #expect(
            RefreshSchedule.timeWithin(.seconds(1), boundAfter: Self.sixPPM) == .seconds(86_400)
                * Self.sleeperRate)
    }

    @Test func aSyncThatMeetsTheNeedIsFollowedByOneJustBeforeTheBoundReachesIt() {
        var schedule = RefreshSchedule(policy: Self.policy)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let (delay, needNotMet) = schedule.nextDelay(
                afterSuccess: true, need: .milliseconds(100), boundAfter: Self.sixPPM, using: &random)
            #expect(!needNotMet)
            // Jitter only earlier: the bound is never let past the need.
            #expect(
                delay >= .seconds(11_250) * Self.sleeperRate - .milliseconds(1) && delay <= .seconds(15_000),
                "\(delay)")
        }
        // Reaching the need sooner than the minimum interval: the minimum interval.
        let fast: (Duration) -> Duration? = { .milliseconds(99) + $0 * 1e-3 }
        let (delay, _) = schedule.nextDelay(
            afterSuccess: true, need: .milliseconds(100), boundAfter: fast, using: &random)
        #expect(delay == Self.policy.minimumInterval)
    }

    @Test func aSyncThatCannotMeetTheNeedBacksOffAndSaysSo() {
        var schedule = RefreshSchedule(policy: Self.policy)
        var random = SystemRandomNumberGenerator()
        let wide: (Duration) -> Duration? = { .milliseconds(500) + $0 * 6e-6 }
        var delays: [Duration] = []
        for _ in 0..<3 {
            let (delay, needNotMet) = schedule.nextDelay(
                afterSuccess: true, need: .milliseconds(100), boundAfter: wide, using: &random)
            #expect(needNotMet)
            delays.append(delay)
        }
        // 64 s, 128 s, 256 s, each drawn in its upper half: the backoff of failures.
        #expect(delays[0] >= .seconds(32) && delays[0] <= .seconds(64), "\(delays)")
        #expect(delays[1] >= .seconds(64) && delays[1] <= .seconds(128), "\(delays)")
        #expect(delays[2] >= .seconds(128) && delays[2] <= .seconds(256), "\(delays)")
        #expect(schedule.consecutiveFailures == 3)
        // A failure is a failure, not a need not met; and a success that meets it resets the count.
        #expect(
            !schedule.nextDelay(
                afterSuccess: false, need: .milliseconds(100), boundAfter: wide, using: &random
            ).needNotMet)
        _ = schedule.nextDelay(
            afterSuccess: true, need: .milliseconds(100), boundAfter: Self.sixPPM, using: &random)
        #expect(schedule.consecutiveFailures == 0)
    }
}
