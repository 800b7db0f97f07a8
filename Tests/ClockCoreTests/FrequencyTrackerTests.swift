import Foundation
import LoopbackServers
import NetClockPlatform
import Testing
import TimeValues

@testable import ClockCore

/// The frequency interval from the sync history: sound (it holds the oscillator's frequency
/// whenever every sync's interval holds the truth and the frequency moves within the wander
/// allowance), as tight as all pairs allow, and reset when a sync contradicts it.
@Suite("FrequencyTracker")
struct FrequencyTrackerTests {
    /// Sync points of an oscillator `ppm` fast, every `spacing` seconds, the true time off by
    /// `noise(i)` (within `bound`).
    private static func points(
        count: Int, spacing: Int64 = 300, ppm: Double, bound: Duration = .milliseconds(1),
        noise: (Int) -> Duration = { _ in .zero }
    ) -> [FrequencyTracker.Point] {
        let start = UnixTime(seconds: 1_780_000_000)
        return (0..<count).map { i in
            let trueElapsed = Duration.seconds(spacing * Int64(i))
            let awake = Duration.seconds(1000) + trueElapsed + trueElapsed * (ppm * 1e-6)
            return FrequencyTracker.Point(
                base: TimeBaseInstant(awake: awake), trueTime: start + trueElapsed + noise(i),
                errorBound: bound)
        }
    }

    /// The frequency error of an oscillator `ppm` fast, as the tracker defines it: true elapsed
    /// time = awake time × (1 − f).
    private static func fraction(ppm: Double) -> Double { ppm * 1e-6 / (1 + ppm * 1e-6) }

    // Exact points of a constant frequency: every pair is centred on it exactly, so the
    // intersection is too. Its half-width is the tightest pair's: the widest span, 900 s, gives
    // 2 ms / 900 s = 2.22 ppm, plus the 1 ppm jump and 10 ppm/h × 900 s = 2.5 ppm of wander since its
    // first point (evaluated at the last point).
    @Test("exact points of a +50 ppm oscillator: centred on it, as wide as the widest pair allows")
    func exactLine() throws {
        let samples = Self.points(count: 4, ppm: 50)
        let tracker = FrequencyTracker(points: samples)
        let interval = tracker.interval(at: try #require(samples.last).base)
        #expect(interval.isMeasured && !interval.exceedsPrior)
        #expect(abs(interval.center - Self.fraction(ppm: 50)) < 1e-12)
        let expected = 2e-3 / (900 * (1 + 50e-6)) + 1e-6 + 10e-6 / 3600 * 900 * (1 + 50e-6) * (1 + 500e-6)
        #expect(abs(interval.halfWidth - expected) < 1e-10, "\(interval.halfWidth) vs \(expected)")
        // However long the wander, the frequency stays within 10 ppm of the tightest pair.
        #expect(abs(interval.rateLimit - (2e-3 / (900 * (1 + 50e-6)) + 10e-6)) < 1e-10)
    }

    // The soundness property itself: 300 random histories of a constant-frequency oscillator
    // (−300…+300 ppm), each sync off by up to its own bound (0.05–20 ms) at random spacings
    // (1 s–2 h); the interval at every point and an hour after the last must hold the frequency.
    @Test("the interval always holds a constant frequency when every sync holds the truth (300 histories)")
    func soundUnderConstantFrequency() {
        var random = SplitMix64(seed: 22)
        var measured = 0
        for _ in 0..<300 {
            let ppm = Double(Int64.random(in: -300_000...300_000, using: &random)) / 1000
            var tracker = FrequencyTracker()
            var trueElapsed = Duration.zero
            for _ in 0..<Int.random(in: 2...20, using: &random) {
                trueElapsed += .milliseconds(Int64.random(in: 1_000...7_200_000, using: &random))
                let bound = Duration.microseconds(Int64.random(in: 50...20_000, using: &random))
                let error = Duration.nanoseconds(
                    Int64.random(in: -bound.truncatedNanoseconds...bound.truncatedNanoseconds, using: &random)
                )
                let awake = Duration.seconds(10) + trueElapsed + trueElapsed * (ppm * 1e-6)
                let point = FrequencyTracker.Point(
                    base: TimeBaseInstant(awake: awake),
                    trueTime: UnixTime(seconds: 1_780_000_000) + trueElapsed + error, errorBound: bound)
                #expect(tracker.add(point) == nil, "a consistent history was reset")
                for instant in [point.base, TimeBaseInstant(awake: awake + .seconds(3600))] {
                    let interval = tracker.interval(at: instant)
                    let f = Self.fraction(ppm: ppm)
                    #expect(interval.lower <= f && f <= interval.upper, "\(ppm) ppm outside \(interval)")
                    if interval.isMeasured { measured += 1 }
                }
            }
        }
        #expect(measured > 1000)
    }

    // The wander model's promise: a frequency that moves by at most J + ω·|Δt| (capped at Ω) is
    // always inside. A ±4 ppm daily cycle (slope 4 ppm × 2π / 1 day ≈ 1 ppm/h, under the 10 ppm/h
    // allowed) around +80 ppm, synced every 5–60 minutes with ±0.2 ms, over three days.
    @Test("a frequency wandering within the allowance stays inside (±4 ppm daily cycle)")
    func soundUnderWander() {
        var random = SplitMix64(seed: 5)
        var tracker = FrequencyTracker()
        var awake = Duration.seconds(100)
        var trueElapsed = 0.0
        let step = 10.0  // integrate the oscillator in 10 s steps
        var nextSync = 0.0
        var checked = 0
        while trueElapsed < 3 * 86_400 {
            let ppm = 80 + 4 * sin(2 * .pi * trueElapsed / 86_400)
            trueElapsed += step
            awake += .seconds(step) * (1 + ppm * 1e-6)
            guard trueElapsed >= nextSync else { continue }
            nextSync = trueElapsed + Double(Int.random(in: 300...3600, using: &random))
            let bound = Duration.microseconds(200)
            let error = Duration.microseconds(Int64.random(in: -200...200, using: &random))
            let point = FrequencyTracker.Point(
                base: TimeBaseInstant(awake: awake),
                trueTime: UnixTime(seconds: 1_780_000_000) + .seconds(trueElapsed) + error, errorBound: bound)
            #expect(tracker.add(point) == nil)
            let interval = tracker.interval(at: point.base)
            let now = Self.fraction(ppm: 80 + 4 * sin(2 * .pi * trueElapsed / 86_400))
            #expect(interval.lower <= now && now <= interval.upper, "at \(trueElapsed) s: \(now) outside")
            checked += 1
        }
        #expect(checked > 100)
    }

    @Test("before two points: the prior; pairs that do not narrow it leave it as it is")
    func prior() throws {
        var tracker = FrequencyTracker()
        let first = Self.points(count: 1, ppm: 0)[0]
        tracker.add(first)
        let one = tracker.interval(at: first.base)
        #expect(!one.isMeasured && one.lower == -500e-6 && one.upper == 500e-6 && one.rateLimit == 500e-6)
        // Two points a second apart with 1 ms bounds: ±2000 ppm, wider than the prior.
        var loose = FrequencyTracker(points: Self.points(count: 2, spacing: 1, ppm: 0))
        #expect(!loose.interval(at: try #require(loose.points.last).base).isMeasured)
        // Under a second apart: no pair at all.
        loose = FrequencyTracker(
            points: [
                first,
                FrequencyTracker.Point(
                    base: .init(awake: first.base.awake + .milliseconds(500)),
                    trueTime: first.trueTime + .milliseconds(500), errorBound: .milliseconds(1)),
            ])
        #expect(!loose.interval(at: try #require(loose.points.last).base).isMeasured)
    }

    // An oscillator 800 ppm fast lies outside the 500 ppm prior: the measurement replaces the prior
    // (never clipped to it, which would make the interval exclude the truth).
    @Test("a measured frequency beyond the prior replaces it")
    func beyondPrior() throws {
        let samples = Self.points(count: 3, ppm: 800)
        let tracker = FrequencyTracker(points: samples)
        let interval = tracker.interval(at: try #require(samples.last).base)
        #expect(interval.isMeasured && interval.exceedsPrior)
        let f = Self.fraction(ppm: 800)
        #expect(interval.lower <= f && f <= interval.upper)
    }

    // Three syncs half an hour apart of a +20 ppm oscillator, which then steps to +60 ppm (far
    // beyond the 1 ppm jump plus 10 ppm/h the model allows) and two more syncs. The first after the
    // step contradicts the history: its pair with the last sync before says 60 ± 6 ppm, the first
    // two syncs' pair 20 ± 10 ppm. The tracker keeps the newest points that agree (the last sync
    // before the step, which the step began at, and the new one), counts a reset, and learns
    // again: the next sync agrees.
    @Test("a frequency step beyond the allowance resets the history to the points after it")
    func step() throws {
        var tracker = FrequencyTracker()
        let before = Self.points(count: 3, spacing: 1800, ppm: 20, bound: .microseconds(100))
        for point in before { #expect(tracker.add(point) == nil) }
        let last = try #require(before.last)
        var reasons: [FrequencyTracker.ResetReason?] = []
        for k in 1...2 {
            let elapsed = Duration.seconds(1800 * Int64(k))
            let point = FrequencyTracker.Point(
                base: TimeBaseInstant(awake: last.base.awake + elapsed + elapsed * 60e-6),
                trueTime: last.trueTime + elapsed, errorBound: .microseconds(100))
            reasons.append(tracker.add(point))
        }
        #expect(reasons == [.frequencyChanged, nil])
        #expect(tracker.resetCount == 1 && tracker.lastReset == .frequencyChanged)
        #expect(tracker.points.count == 3 && tracker.points.first == last)
        let interval = tracker.interval(at: try #require(tracker.points.last).base)
        #expect(interval.lower <= Self.fraction(ppm: 60) && Self.fraction(ppm: 60) <= interval.upper)
    }

    @Test("a reset after a discontinuity keeps the new point, counted only when a frequency was measured")
    func resetKeeping() {
        var tracker = FrequencyTracker()
        let samples = Self.points(count: 3, ppm: 10)
        tracker.add(samples[0])
        tracker.reset(keeping: samples[1], reason: .discontinuity)
        #expect(tracker.resetCount == 0 && tracker.points == [samples[1]])
        tracker.add(samples[2])
        tracker.reset(keeping: samples[0], reason: .discontinuity)
        #expect(
            tracker.resetCount == 1 && tracker.lastReset == .discontinuity && tracker.points == [samples[0]])
    }

    // Two points 10 minutes apart with an hour suspended between them: the suspended part is
    // measured by the kernel within 100 ppm + 1 s, so the pair is ±(0.2 ms + 0.36 s + 1 s) / 600 s
    // wide, useless; without the suspend ±0.33 ppm.
    @Test("suspended time between two points widens their pair by its own tolerance")
    func suspendInPair() throws {
        let first = FrequencyTracker.Point(
            base: TimeBaseInstant(awake: .seconds(100)), trueTime: UnixTime(seconds: 1_780_000_000),
            errorBound: .microseconds(100))
        let second = FrequencyTracker.Point(
            base: TimeBaseInstant(awake: .seconds(700), suspended: .seconds(3600)),
            trueTime: UnixTime(seconds: 1_780_000_000 + 4200), errorBound: .microseconds(100))
        let pair = try #require(FrequencyTracker.pair(first, second, policy: ClockPolicy()))
        #expect(abs(pair.center) < 1e-12)
        #expect(abs(pair.halfWidth - (200e-6 + 3600 * 100e-6 + 1) / 600) < 1e-12)
        var awake = second
        awake.base.suspended = .zero
        awake.trueTime = first.trueTime + .seconds(600)
        let plain = try #require(FrequencyTracker.pair(first, awake, policy: ClockPolicy()))
        #expect(abs(plain.halfWidth - 200e-6 / 600) < 1e-15)
    }

    @Test("history is bounded: thinning keeps the first and last points; old points expire")
    func boundedHistory() {
        var tracker = FrequencyTracker()
        let samples = Self.points(count: 40, spacing: 60, ppm: 5)
        for point in samples { tracker.add(point) }
        #expect(tracker.points.count == 16)
        #expect(tracker.points.first == samples.first)
        #expect(tracker.points.last == samples.last)

        var windowed = FrequencyTracker(
            policy: ClockPolicy(frequencyHistoryWindow: .seconds(3600)))
        for point in Self.points(count: 8, spacing: 1200, ppm: 5) { windowed.add(point) }
        // Points 4...7 are within 3600 s of point 7 (the oscillator runs 5 ppm fast, so point 4 is
        // 3600.018 s before point 7 and drops out); 3 points remain.
        #expect(windowed.points.count == 3)
    }

    @Test("a duplicate instant replaces a point only with a tighter bound")
    func duplicates() {
        var tracker = FrequencyTracker()
        let point = Self.points(count: 1, ppm: 0)[0]
        tracker.add(point)
        var looser = point
        looser.errorBound = .milliseconds(2)
        tracker.add(looser)
        #expect(tracker.points == [point])
        var tighter = point
        tighter.errorBound = .microseconds(100)
        tracker.add(tighter)
        #expect(tracker.points == [tighter])
        var negative = Self.points(count: 2, ppm: 0)[1]
        negative.errorBound = .milliseconds(-1)
        tracker.add(negative)
        #expect(tracker.points == [tighter])
    }

    @Test("a tracker seeded with saved points equals one fed the same points; contradictions are dropped")
    func seeding() {
        let samples = Self.points(count: 5, ppm: 12, noise: { .microseconds([120, -300, 270, -90, 10][$0]) })
        var fed = FrequencyTracker()
        for point in samples { fed.add(point) }
        #expect(FrequencyTracker(points: samples.reversed()) == fed)
        // A saved history whose first point contradicts the rest (50 ms off with a 1 ms bound):
        // the seeded tracker keeps the agreeing newest points and counts no reset.
        var wrong = samples
        wrong[0].trueTime = wrong[0].trueTime + .milliseconds(50)
        let seeded = FrequencyTracker(points: wrong)
        #expect(seeded.points == Array(samples.dropFirst()) && seeded.resetCount == 0)
    }
}
