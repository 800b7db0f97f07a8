import ClockCore
import NetClockPlatform
import Testing

@testable import NetworkClock

/// The lifecycle monitor's two decisions, on values alone: what a wake-up was (a resume, a
/// wall-clock step, a network change), told apart by whether `CLOCK_BOOTTIME` moved against
/// `CLOCK_MONOTONIC`; and how soon a running clock syncs in answer.
@Suite struct LifecycleDecisionTests {
    static func reading(suspended: Duration, wallOffset: Duration) -> LifecycleReading {
        LifecycleReading(suspended: suspended, wallOffset: wallOffset)
    }

    static let before = reading(suspended: .seconds(30), wallOffset: .seconds(1_780_000_000))

    static func descriptions(_ events: [ClockEvent]) -> [String] { events.map(\.description) }

    @Test func aResumeIsBootTimeMovingAgainstMonotonicTime() {
        // 8 h asleep: the kernel adds it to CLOCK_BOOTTIME and to the wall clock, and cancels the
        // CLOCK_REALTIME timer. One resume, not a step.
        let after = Self.reading(suspended: .seconds(30 + 28_800), wallOffset: .seconds(1_780_028_800))
        let events = after.events(since: Self.before, wallClockSet: true, routesChanged: false)
        #expect(Self.descriptions(events) == ["resumed: after 28800.000000s suspended"])
        guard case .resumed(let asleep)? = events.first else { return }
        #expect(asleep == .seconds(28_800))
        // Found by reading the clocks when the timer is unavailable (the periodic check), too.
        #expect(
            Self.descriptions(after.events(since: Self.before, wallClockSet: false, routesChanged: false))
                == Self.descriptions(events))
    }

    @Test func aSetWithoutAResumeIsAStep() {
        // A leap second (or `netclock set` moving the clock back 1 s): the timer fires, boot time
        // has not moved against monotonic time.
        let leap = Self.reading(suspended: .seconds(30), wallOffset: .seconds(1_780_000_000) - .seconds(1))
        let events = leap.events(since: Self.before, wallClockSet: true, routesChanged: false)
        guard case .wallClockStepped(let step)? = events.first, events.count == 1 else {
            Issue.record("expected one step, got \(events)")
            return
        }
        #expect(step == .seconds(-1))
        // The clock set to its own time: a set, of nothing.
        let same = Self.before.events(since: Self.before, wallClockSet: true, routesChanged: false)
        #expect(
            Self.descriptions(same) == ["wall clock stepped by +0.000ms (the clock's time is unaffected)"])
        // A step seen only by the readings (no timer).
        let forward = Self.reading(suspended: .seconds(30), wallOffset: .seconds(1_780_000_090))
        #expect(
            Self.descriptions(forward.events(since: Self.before, wallClockSet: false, routesChanged: false))
                == ["wall clock stepped by +90.000000s (the clock's time is unaffected)"])
    }

    @Test func readNoiseIsNoEvent() {
        // 40 ns of pairing noise in the suspended time and none in the offset: nothing happened.
        let noisy = Self.reading(
            suspended: .seconds(30) + .nanoseconds(40), wallOffset: Self.before.wallOffset)
        #expect(noisy.events(since: Self.before, wallClockSet: false, routesChanged: false).isEmpty)
        // Routes alone: a network change, and nothing else.
        #expect(
            Self.descriptions(noisy.events(since: Self.before, wallClockSet: false, routesChanged: true))
                == ["network changed: an address or a route was added or removed"])
    }

    /// A schedule after `failures` failed syncs.
    static func schedule(_ policy: NetworkClock.RefreshPolicy, failures: Int) -> RefreshSchedule {
        var schedule = RefreshSchedule(policy: policy)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<failures { _ = schedule.nextDelay(afterSuccess: false, using: &random) }
        return schedule
    }

    static func context(
        since: Duration?, age: Duration? = .seconds(10),
        bound: @escaping (Duration) -> Duration? = { _ in nil }
    ) -> RefreshSchedule.LifecycleContext {
        RefreshSchedule.LifecycleContext(sinceLastRequest: since, anchorAge: age, boundAfter: bound)
    }

    @Test func aNetworkChangeRetriesOnlyAFailingSyncSoonButNotBeforeTheMinimumInterval() {
        var random = SystemRandomNumberGenerator()
        let policy = NetworkClock.RefreshPolicy()  // minimum interval 64 s
        let healthy = Self.schedule(policy, failures: 0)
        #expect(
            healthy.delay(reactingTo: .networkChanged, in: Self.context(since: .seconds(500)), using: &random)
                == nil)
        let failing = Self.schedule(policy, failures: 2)
        // Long after the last request: a draw from 2…6 s, spread.
        var draws: Set<Duration> = []
        for _ in 0..<200 {
            let delay = failing.delay(
                reactingTo: .networkChanged, in: Self.context(since: .seconds(500)), using: &random)
            guard let delay else {
                Issue.record("no retry for a failing sync")
                return
            }
            #expect(delay >= .seconds(2) && delay <= .seconds(6), "\(delay)")
            draws.insert(delay)
        }
        #expect(draws.count > 100, "the retry is not jittered")
        // 30 s after the last request: not before the 64 s minimum interval, 34 s from now.
        #expect(
            failing.delay(reactingTo: .networkChanged, in: Self.context(since: .seconds(30)), using: &random)
                == .seconds(34))
        // A need not met backs off as a failure does: it is retried too.
        var notMet = RefreshSchedule(policy: .demand(maximumBound: .milliseconds(100)))
        _ = notMet.nextDelay(
            afterSuccess: true, need: .milliseconds(100), boundAfter: { _ in .seconds(1) }, using: &random)
        #expect(
            notMet.delay(reactingTo: .networkChanged, in: Self.context(since: .seconds(500)), using: &random)
                != nil)
    }

    @Test func aWallClockStepNeverCallsForASync() {
        var random = SystemRandomNumberGenerator()
        let failing = Self.schedule(.demand(maximumBound: .milliseconds(100)), failures: 3)
        let event = ClockEvent.wallClockStepped(by: .seconds(-1))
        #expect(
            failing.delay(reactingTo: event, in: Self.context(since: .seconds(500), age: nil), using: &random)
                == nil)
    }

    @Test func aResumeSyncsWhenTheNeedIsNoLongerMet() {
        var random = SystemRandomNumberGenerator()
        let resumed = ClockEvent.resumed(suspendedFor: .seconds(3600))
        let schedule = Self.schedule(.demand(maximumBound: .milliseconds(100)), failures: 0)
        // The suspend cost 1.4 s of bound: a sync at once, or once the minimum interval has passed.
        let wide: (Duration) -> Duration? = { .milliseconds(1_400) + $0 * 6e-6 }
        #expect(
            schedule.delay(
                reactingTo: resumed, in: Self.context(since: .seconds(3700), bound: wide), using: &random)
                == .zero)
        #expect(
            schedule.delay(
                reactingTo: resumed, in: Self.context(since: .seconds(10), bound: wide), using: &random)
                == .seconds(54))
        // No time of the kind asked for (not authenticated, say): a sync at once.
        #expect(
            schedule.delay(reactingTo: resumed, in: Self.context(since: .seconds(3700)), using: &random)
                == .zero)
        // Still within it (10 ms, growing at 6 ppm: 15,000 s to 100 ms): the next sync just before
        // the bound reaches it, as a wait on a boot-time clock a time daemon may run slower by up to
        // the slew limit (500 ppm: 14,992.5 s), jittered only earlier, by up to a quarter (11,244.4 s).
        let tight: (Duration) -> Duration? = { .milliseconds(10) + $0 * 6e-6 }
        let within = Duration.seconds(15_000) * (1 - KernelDiscipline.slewLimit)
        for _ in 0..<50 {
            let delay = schedule.delay(
                reactingTo: resumed, in: Self.context(since: .seconds(3700), bound: tight), using: &random)
            guard let delay else {
                Issue.record("no schedule for a clock within its need")
                return
            }
            #expect(delay >= within * 0.75 - .milliseconds(1) && delay <= within, "\(delay)")
        }
    }

    @Test func withoutANeedAResumeSyncsOnlyAnAnchorOlderThanTheInterval() {
        var random = SystemRandomNumberGenerator()
        let resumed = ClockEvent.resumed(suspendedFor: .seconds(3600))
        let schedule = Self.schedule(NetworkClock.RefreshPolicy(), failures: 0)  // interval 1024 s
        #expect(
            schedule.delay(
                reactingTo: resumed, in: Self.context(since: .seconds(4000), age: .seconds(4000)),
                using: &random) == .zero)
        #expect(
            schedule.delay(
                reactingTo: resumed, in: Self.context(since: .seconds(500), age: .seconds(500)),
                using: &random) == nil)
        // No anchor (or only a restored one): a sync, not before the minimum interval.
        #expect(
            schedule.delay(
                reactingTo: resumed, in: Self.context(since: .seconds(4), age: nil), using: &random)
                == .seconds(60))
    }
}
