import NetClockPlatform
import SNTP
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// The anchored clock across a leap second on a simulated machine with no drift: the simulation's
/// time is linear (SI seconds), the truth a stepping server tells is POSIX time (an inserted second
/// repeats 23:59:59, a deleted one skips it), the truth a smearing one tells is the 24 h linear
/// smear. The anchor is taken 20 s before the 2027-01-01 midnight with a 1 ms bound; the clock's
/// prior tolerance (500 ppm) grows it by at most 50 ms over the 100 s checked. Without drift the
/// estimate's error is only the nanosecond truncation, so 1 µs is a tolerance that a clock off by
/// the leap (1 s) or by half a smear fails by far.
@Suite("Leap seconds: anchored clock")
struct LeapSecondClockTests {
    static let midnight = LeapSecondTables.midnight2027

    /// POSIX time for linear time `linear` with a leap of `sign` (+1 inserted, −1 deleted, 0 none)
    /// at `midnight`, as a kernel applying STA_INS/STA_DEL steps.
    static func posix(_ linear: UnixTime, sign: Int64, midnight: Int64 = midnight) -> UnixTime {
        switch sign {
        case 1: linear >= UnixTime(seconds: midnight) ? linear - .seconds(1) : linear
        case -1: linear >= UnixTime(seconds: midnight - 1) ? linear + .seconds(1) : linear
        default: linear
        }
    }

    /// The 24 h linear smear (noon to noon, 86,400 ± 1 SI seconds) of linear time `linear`.
    static func smeared(_ linear: UnixTime, sign: Int64) -> UnixTime {
        let start = Double(midnight - 43_200)
        let width = 86_400 + Double(sign)
        let x = min(1, max(0, (linear.secondsDouble - start) / width))
        return linear - .seconds(Double(sign) * x)
    }

    private func clock(_ timeline: SimulatedTimeline, smear: Bool = false) -> AnchoredClock {
        var policy = NetworkClock.ClockPolicy()
        policy.smearsLeapSeconds = smear
        return AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock, policy: policy)
    }

    private func timeline(secondsBefore: Int64 = 20) -> SimulatedTimeline {
        SimulatedTimeline(start: UnixTime(seconds: Self.midnight - secondsBefore, nanoseconds: 250_000_000))
    }

    @Test(
        "announced (LI or table): the truth stays inside a millisecond bound through the step",
        arguments: [Int64(1), -1])
    func announced(sign: Int64) throws {
        let timeline = timeline()
        let clock = clock(timeline)
        var anchor = timeline.anchor(bound: .milliseconds(1))
        anchor.leap = .announced(sign: sign, at: anchor.trueTime)
        #expect(clock.offer(anchor).replacedAnchor)
        let first = try #require(clock.now())
        #expect(first.leap.kind == (sign > 0 ? .insert : .delete))
        #expect(first.leap.instant == UnixTime(seconds: Self.midnight))
        for step in 0..<24 {
            timeline.advance(by: .milliseconds(500))
            let estimate = try #require(clock.now())
            let truth = Self.posix(timeline.trueTime, sign: sign)
            #expect(abs(estimate.time - truth) <= .microseconds(1), "at \(step)")
            #expect(estimate.contains(truth))
            // Only while the interval straddles the step is the bound a second wider.
            let nearStep = abs(timeline.trueTime - UnixTime(seconds: Self.midnight - (sign > 0 ? 0 : 1)))
            if nearStep > .milliseconds(100) { #expect(estimate.errorBound < .milliseconds(100)) }
        }
    }

    @Test("no information and no valid table: the bound covers either sign after the month's end")
    func unknown() throws {
        let timeline = timeline()
        let clock = clock(timeline)
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(1))).replacedAnchor)
        timeline.advance(by: .seconds(10))
        let before = try #require(clock.now())
        #expect(before.leap.kind == .unknown)
        #expect(before.errorBound < .milliseconds(20))
        timeline.advance(by: .seconds(13))  // 3 s after the month's end
        let after = try #require(clock.now())
        #expect(after.errorBound >= .seconds(1))
        #expect(after.errorBound < .seconds(1) + .milliseconds(20))
        for sign: Int64 in [1, 0, -1] {
            #expect(after.contains(Self.posix(timeline.trueTime, sign: sign)))
        }
    }

    @Test("an LI = 0 on the month's last day or a valid table: no widening", arguments: ["li", "table"])
    func knownNone(from: String) throws {
        let timeline = timeline()
        let clock = clock(timeline)
        var anchor = timeline.anchor(bound: .milliseconds(1))
        if from == "li" {
            anchor.leap = .announced(sign: 0, at: anchor.trueTime)
        } else {
            anchor.leap = .table(try LeapSecondTable(parsing: LeapSecondTables.none2027), at: anchor.trueTime)
        }
        #expect(clock.offer(anchor).replacedAnchor)
        #expect(clock.now()?.leap.kind == TimeEstimate.Leap.Kind.none)
        timeline.advance(by: .seconds(23))
        let after = try #require(clock.now())
        #expect(after.errorBound < .milliseconds(20))
        #expect(abs(after.time - timeline.trueTime) <= .microseconds(1))
    }

    @Test("a later sync after the leap removes the widening and agrees with the stepped time")
    func syncAfter() throws {
        let timeline = timeline()
        let clock = clock(timeline)
        var anchor = timeline.anchor(bound: .milliseconds(1))
        anchor.leap = .announced(sign: 1, at: anchor.trueTime)
        clock.offer(anchor)
        timeline.advance(by: .seconds(30))
        var later = timeline.anchor(bound: .milliseconds(1))
        later.trueTime = Self.posix(timeline.trueTime, sign: 1)
        later.leap = .announced(sign: 0, at: later.trueTime)
        let outcome = clock.offer(later)
        if case .discontinuous = outcome { Issue.record("the stepped anchor looked discontinuous") }
        let estimate = try #require(clock.now())
        #expect(abs(estimate.time - Self.posix(timeline.trueTime, sign: 1)) <= .microseconds(1))
        #expect(estimate.errorBound < .milliseconds(5))
    }

    /// POSIX time steps by the leap while the oscillator does not: a pair of syncs across it would
    /// read the second as a frequency error of a second over their span (33,000 ppm here) and carry
    /// the estimate off by that rate. The history is reset instead, and the clock stays on time.
    @Test("syncs across the leap measure no frequency from it", arguments: [Int64(1), -1])
    func noFrequencyFromTheLeap(sign: Int64) throws {
        let timeline = timeline()
        let clock = clock(timeline)
        for _ in 0..<2 {
            var anchor = timeline.anchor(bound: .milliseconds(1))
            anchor.leap = .announced(sign: sign, at: anchor.trueTime)
            clock.offer(anchor)
            timeline.advance(by: .seconds(10))
        }
        #expect(clock.frequency().isMeasured)
        let before = clock.frequency()
        timeline.advance(by: .seconds(10))
        var later = timeline.anchor(bound: .milliseconds(1))
        later.trueTime = Self.posix(timeline.trueTime, sign: sign)
        later.leap = .announced(sign: 0, at: later.trueTime)
        clock.offer(later)
        #expect(clock.frequencyReset(since: before)?.code == "leap_second")
        #expect(clock.frequency().syncCount == 1)
        timeline.advance(by: .seconds(60))
        let estimate = try #require(clock.now())
        let truth = Self.posix(timeline.trueTime, sign: sign)
        #expect(estimate.contains(truth), "\(estimate) vs \(truth)")
        #expect(abs(estimate.time - truth) <= .microseconds(1), "\(estimate.time - truth)")
    }

    @Test(
        "smear: 24 h linear, noon to noon, inside the bound before, during and after",
        arguments: [Int64(1), -1])
    func smear(sign: Int64) throws {
        let timeline = timeline(secondsBefore: 43_300)
        let clock = clock(timeline, smear: true)
        var anchor = timeline.anchor(bound: .milliseconds(1))
        anchor.leap = .announced(sign: sign, at: anchor.trueTime)
        clock.offer(anchor)
        #expect(clock.now()?.leap.isSmeared == true)
        // 100 s before the smear, its start, a quarter, the leap, three quarters, its end and after.
        for advance in [Int64(0), 100, 21_600, 21_600, 21_600, 21_600, 100] {
            timeline.advance(by: .seconds(advance))
            let estimate = try #require(clock.now())
            let truth = Self.smeared(timeline.trueTime, sign: sign)
            // The prior tolerance grows the bound by 500 ppm: 43 s after a day.
            #expect(estimate.contains(truth))
            #expect(abs(estimate.time - truth) <= .microseconds(1))
        }
    }
}
