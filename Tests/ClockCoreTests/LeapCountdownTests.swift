import NetClockPlatform
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// Countdowns and ticks across a leap second on the simulated machine (no drift; the simulation's
/// time is linear, SI seconds). A deadline is a UTC label (POSIX time, as a flash sale's
/// "00:00:10 UTC"): it ends when the clock's reading reaches the label, so across an inserted
/// second it lasts 1 SI second more than the POSIX difference taken before the leap, across a
/// deleted one 1 s less; smearing, it ends when the smeared reading reaches it. Ticks mark each
/// POSIX boundary once: the inserted second (23:59:60, read as a second 23:59:59) has no tick of
/// its own, and the deleted 23:59:59 none at all. The anchor's bound is 1 ms and grows 500 ppm
/// (under 10 ms over the 20 s checked); without drift the estimate's error is the nanosecond
/// truncation, so a countdown that ignored the leap is off by the whole second.
@Suite("Leap seconds: countdowns and ticks across the leap")
struct LeapCountdownTests {
    static let midnight = LeapSecondTables.midnight2027

    /// A clock anchored 5 s before the midnight, a leap of `sign` announced.
    static func scene(sign: Int64, smear: Bool = false, before: Int64 = 5) -> (
        SimulatedTimeline, AnchoredClock
    ) {
        let timeline = SimulatedTimeline(start: UnixTime(seconds: midnight - before))
        var policy = NetworkClock.ClockPolicy()
        policy.smearsLeapSeconds = smear
        let clock = AnchoredClock(
            monotonic: timeline.monotonicClock, wall: timeline.wallClock, policy: policy)
        var anchor = timeline.anchor(bound: .milliseconds(1))
        anchor.leap = .announced(sign: sign, at: anchor.trueTime)
        clock.offer(anchor)
        return (timeline, clock)
    }

    @Test(
        "a countdown to 00:00:10 UTC ends when the clock reads it: 1 s after the POSIX difference across an insert, 1 s before across a delete",
        arguments: [Int64(1), 0, -1])
    func countdown(sign: Int64) throws {
        let (timeline, clock) = Self.scene(sign: sign)
        let deadline = UnixTime(seconds: Self.midnight + 10)
        let remaining = try #require(clock.timeRemaining(until: deadline))
        #expect(remaining == .seconds(15))
        // The SI seconds it really lasts.
        let lasts = Duration.seconds(15 + sign)
        timeline.advance(by: lasts - .milliseconds(20))
        let before = try #require(clock.now())
        #expect(abs(before.timeRemaining(until: deadline) - .milliseconds(20)) <= .microseconds(1))
        #expect(before.isCertainlyBefore(deadline))
        timeline.advance(by: .milliseconds(20))
        let at = try #require(clock.now())
        #expect(abs(at.timeRemaining(until: deadline)) <= .microseconds(1))
        #expect(at.errorBound < .milliseconds(20))
        timeline.advance(by: .milliseconds(20))
        #expect(try #require(clock.now()).hasCertainlyPassed(deadline))
        print("countdown sign \(sign): POSIX difference 15 s before the leap, lasted \(lasts) SI")
    }

    @Test("smearing, a countdown ends when the smeared reading reaches the label", arguments: [Int64(1), -1])
    func countdownSmeared(sign: Int64) throws {
        let (timeline, clock) = Self.scene(sign: sign, smear: true)
        let deadline = UnixTime(seconds: Self.midnight + 10)
        // Linear time at which the smear (noon to noon, 86,400 + sign SI s as 86,400) reads the label.
        let start = UnixTime(seconds: Self.midnight - 43_200)
        let ends = start + (deadline - start) * (Double(86_400 + sign) / 86_400)
        let first = try #require(clock.now())
        // Already smeared by almost half a second 5 s before the midnight.
        #expect(abs(first.timeRemaining(until: deadline) - (ends - timeline.trueTime)) <= .milliseconds(1))
        timeline.advance(by: ends - timeline.trueTime)
        let at = try #require(clock.now())
        #expect(abs(at.timeRemaining(until: deadline)) <= .microseconds(1))
        #expect(!at.isCertainlyBefore(deadline) && !at.hasCertainlyPassed(deadline))
    }

    /// Ticks every second from 3 s before the midnight, with the linear time of each delivery.
    static func ticks(sign: Int64, count: Int) async -> [(
        boundary: Int64, linear: UnixTime, lateness: Duration
    )] {
        let (timeline, clock) = scene(sign: sign, before: 3)
        var iterator = clock.ticks(every: .seconds(1), sleepingOn: SimulatedSleepClock(timeline: timeline))
            .makeAsyncIterator()
        var delivered: [(Int64, UnixTime, Duration)] = []
        while delivered.count < count, let tick = await iterator.next() {
            delivered.append((tick.boundary.seconds - midnight, timeline.trueTime, tick.lateness))
        }
        return delivered
    }

    @Test("an inserted second: every POSIX second ticks once, 00:00:00 two SI seconds after 23:59:59")
    func ticksInsert() async {
        let ticks = await Self.ticks(sign: 1, count: 6)
        #expect(ticks.map(\.boundary) == [-3, -2, -1, 0, 1, 2])
        #expect(
            ticks.map { $0.linear - UnixTime(seconds: Self.midnight) }
                == [-3, -2, -1, 1, 2, 3].map { .seconds($0) })
        for tick in ticks { #expect(tick.lateness == .zero, "\(tick.boundary)") }
    }

    @Test("a deleted second: 23:59:59 never ticks, 00:00:00 one SI second after 23:59:58")
    func ticksDelete() async {
        let ticks = await Self.ticks(sign: -1, count: 5)
        #expect(ticks.map(\.boundary) == [-3, -2, 0, 1, 2])
        #expect(
            ticks.map { $0.linear - UnixTime(seconds: Self.midnight) }
                == [-3, -2, -1, 0, 1].map { .seconds($0) })
        for tick in ticks { #expect(tick.lateness == .zero, "\(tick.boundary)") }
    }
}
