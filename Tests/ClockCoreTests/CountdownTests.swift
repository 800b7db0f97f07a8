import Foundation
import SNTP
import Synchronization
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

@Suite("Countdowns", .timeLimit(.minutes(1)))
struct CountdownTests {
    private func makeClock(_ timeline: SimulatedTimeline) -> AnchoredClock {
        AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
    }

    /// Collects `count` ticks.
    private func collect<C: Clock>(_ ticks: TrueTimeTicks<C>, count: Int) async -> [ClockTick] {
        var collected: [ClockTick] = []
        for await tick in ticks {
            collected.append(tick)
            if collected.count == count { break }
        }
        return collected
    }

    @Test("timeRemaining counts true time and ignores wall-clock steps")
    func timeRemaining() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        let deadline = timeline.trueTime + .seconds(10)
        clock.offer(timeline.anchor(bound: .milliseconds(4)))
        timeline.advance(by: .seconds(3))
        #expect(clock.timeRemaining(until: deadline) == .seconds(7))
        timeline.stepWallClock(by: .seconds(-7200))
        #expect(clock.timeRemaining(until: deadline) == .seconds(7))
        timeline.stepWallClock(by: .seconds(86_400 * 365))
        #expect(clock.timeRemaining(until: deadline) == .seconds(7))

        let estimate = try #require(clock.now())
        #expect(estimate.isCertainlyBefore(deadline))
        #expect(!estimate.hasCertainlyPassed(deadline))
        // Within the bound of the deadline, neither can be claimed.
        timeline.advance(by: .seconds(7))
        let atDeadline = try #require(clock.now())
        #expect(atDeadline.timeRemaining(until: deadline) == .zero)
        #expect(!atDeadline.isCertainlyBefore(deadline))
        #expect(!atDeadline.hasCertainlyPassed(deadline))
        timeline.advance(by: .seconds(1))
        #expect(clock.timeRemaining(until: deadline) == .seconds(-1))
        #expect(try #require(clock.now()).hasCertainlyPassed(deadline))
    }

    // The simulated sleeper wakes 3 ms late every time. Because every wait is recomputed from the
    // anchor, each tick is exactly 3 ms late — not 3, 6, 9 … ms as a fixed-interval timer would be.
    // Meanwhile the user steps the wall clock by an hour at every sleep; boundaries must not move.
    @Test("ticks land on true-second boundaries; lateness does not accumulate; wall steps do not shift them")
    func ticksOnBoundaries() async throws {
        let timeline = SimulatedTimeline(start: UnixTime(seconds: 1_780_000_000, nanoseconds: 400_000_000))
        let clock = makeClock(timeline)
        clock.offer(timeline.anchor(bound: .milliseconds(2)))
        let sleeper = SimulatedSleepClock(
            timeline: timeline, lateness: .milliseconds(3),
            onSleep: { timeline.stepWallClock(by: .seconds(3600)) })
        let ticks = await collect(clock.ticks(every: .seconds(1), sleepingOn: sleeper), count: 6)
        #expect(ticks.map(\.boundary) == (1...6).map { UnixTime(seconds: 1_780_000_000 + Int64($0)) })
        for tick in ticks {
            #expect(tick.lateness == .milliseconds(3), "\(tick.boundary)")
        }
        #expect(timeline.wallReading - timeline.trueTime == .seconds(6 * 3600))
    }

    @Test("ticks at a sub-second interval, on a drifting monotonic clock, never fire early")
    func ticksWithDrift() async throws {
        let timeline = SimulatedTimeline(monotonicDriftPPM: -80)
        let clock = makeClock(timeline)
        clock.offer(timeline.anchor(bound: .milliseconds(2)))
        let sleeper = SimulatedSleepClock(timeline: timeline)
        let ticks = await collect(clock.ticks(every: .milliseconds(250), sleepingOn: sleeper), count: 8)
        // The start is xxx.250 s, exactly on a boundary, so the first tick fires at once.
        #expect(ticks.first?.boundary == timeline.start)
        for (previous, next) in zip(ticks, ticks.dropFirst()) {
            #expect(next.boundary - previous.boundary == .milliseconds(250))
        }
        for tick in ticks {
            #expect(tick.lateness >= .zero)
            #expect(tick.lateness < .microseconds(1))
            #expect(tick.boundary.nanoseconds % 250_000_000 == 0)
        }
    }

    @Test(
        "a late wake-up skips missed boundaries instead of bursting; no boundary repeats after a correction")
    func skipsAndNoRepeats() async throws {
        let timeline = SimulatedTimeline(start: UnixTime(seconds: 1_780_000_000, nanoseconds: 500_000_000))
        let clock = makeClock(timeline)
        clock.offer(timeline.anchor(bound: .milliseconds(10)))
        let ticks = clock.ticks(every: .seconds(1), sleepingOn: SimulatedSleepClock(timeline: timeline))
        var iterator = ticks.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.boundary == UnixTime(seconds: 1_780_000_001))

        // The process is suspended for 3.2 s: the next tick is the latest boundary, once.
        timeline.advance(by: .milliseconds(3200))
        let resumed = try #require(await iterator.next())
        #expect(resumed.boundary == UnixTime(seconds: 1_780_000_004))
        #expect(resumed.lateness == .milliseconds(200))

        // A tighter anchor moves true time back by 400 ms: boundary …004 is not delivered again.
        let corrected = Anchor(
            trueTime: timeline.trueTime - .milliseconds(400), monotonic: timeline.monotonicReading,
            errorBound: .milliseconds(1), source: .ntp)
        #expect(clock.offer(corrected).replacedAnchor)
        let next = try #require(await iterator.next())
        #expect(next.boundary == UnixTime(seconds: 1_780_000_005))
        #expect(next.lateness == .zero)
    }

    @Test("an unsynchronized clock's ticks wait for an anchor, and cancellation ends the sequence")
    func waitsAndCancels() async throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        let sleeps = Mutex(0)
        let sleeper = SimulatedSleepClock(
            timeline: timeline,
            onSleep: {
                let count = sleeps.withLock { value in
                    value += 1
                    return value
                }
                if count == 3 { clock.offer(timeline.anchor(bound: .milliseconds(1))) }
            })
        var iterator = clock.ticks(every: .seconds(1), sleepingOn: sleeper).makeAsyncIterator()
        let tick = try #require(await iterator.next())
        #expect(sleeps.withLock { $0 } >= 3)
        #expect(tick.estimate.source == .ntp)

        // On the real continuous clock, cancelling the consuming task ends the sequence promptly.
        let unsynchronized = AnchoredClock()
        let task = Task { () -> Int in
            var count = 0
            for await _ in unsynchronized.ticks(every: .seconds(60)) { count += 1 }
            return count
        }
        // Real time on purpose: this is the production clock's sleep, which only real time reaches;
        // 50 ms lets the task get into it before it is cancelled.
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        #expect(await task.value == 0)
    }

    @Test("boundaries are exact multiples of the interval, also before the epoch")
    func boundaryArithmetic() {
        typealias Iterator = TrueTimeTicks<ContinuousClock>.Iterator
        let second = Duration.seconds(1)
        #expect(
            Iterator.boundary(atOrBefore: UnixTime(seconds: 10, nanoseconds: 999_999_999), interval: second)
                == UnixTime(seconds: 10))
        #expect(
            Iterator.boundary(atOrBefore: UnixTime(seconds: 10), interval: second) == UnixTime(seconds: 10))
        #expect(
            Iterator.boundary(atOrBefore: UnixTime(seconds: -1, nanoseconds: 500_000_000), interval: second)
                == UnixTime(seconds: -1))
        #expect(
            Iterator.boundary(atOrBefore: UnixTime(seconds: 7), interval: .seconds(5)) == UnixTime(seconds: 5)
        )
    }
}
