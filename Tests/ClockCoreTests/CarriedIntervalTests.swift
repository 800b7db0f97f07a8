import LoopbackServers
import NetClockPlatform
import Testing
import TimeValues

@testable import ClockCore

/// The interval a ``FrequencyTracker`` carries to a later boot (``FrequencyTracker/carried``):
/// sound for any frequency within the wander limit and the reboot allowance of what was measured,
/// clamped to the prior, dropped by resets and by pairs that contradict it, never taken from
/// values that are not an interval.
@Suite("CarriedInterval")
struct CarriedIntervalTests {
    /// Sync points of an oscillator `ppm` fast, every `spacing` seconds, exact, bound `bound`.
    private static func points(
        count: Int, spacing: Int64 = 300, ppm: Double, bound: Duration = .milliseconds(1),
        awakeOrigin: Duration = .seconds(1000)
    ) -> [FrequencyTracker.Point] {
        let start = UnixTime(seconds: 1_780_000_000)
        return (0..<count).map { i in
            let trueElapsed = Duration.seconds(spacing * Int64(i))
            return FrequencyTracker.Point(
                base: TimeBaseInstant(awake: awakeOrigin + trueElapsed + trueElapsed * (ppm * 1e-6)),
                trueTime: start + trueElapsed, errorBound: bound)
        }
    }

    private static func fraction(ppm: Double) -> Double { ppm * 1e-6 / (1 + ppm * 1e-6) }

    // Four exact points of +50 ppm, 300 s apart with 1 ms bounds: the tightest pair (900 s) is
    // ±2.22 ppm; however long after it the wander adds 10 ppm, the reboot 10 ppm more.
    @Test("an earlier boot's pairs, each widened by the whole wander limit, plus the reboot allowance")
    func widened() throws {
        let earlier = FrequencyTracker(points: Self.points(count: 4, ppm: 50))
        let carried = try #require(earlier.intervalForNextBoot)
        let pair = 2e-3 / (900 * (1 + 50e-6))
        #expect(abs(carried.center - Self.fraction(ppm: 50)) < 1e-12)
        #expect(abs(carried.halfWidth - (pair + 20e-6)) < 1e-12)
        #expect(carried.rateLimit == carried.halfWidth && carried.isMeasured && !carried.exceedsPrior)
        // A boot that measured nothing of its own passes what it carried on, widened once more.
        var next = FrequencyTracker()
        let took = next.carry(from: earlier)
        #expect(took)
        #expect(next.carried == carried)
        let after = try #require(next.intervalForNextBoot)
        #expect(abs(after.halfWidth - (carried.halfWidth + 10e-6)) < 1e-12 && after.center == carried.center)
        // Nothing measured, nothing carried.
        #expect(FrequencyTracker(points: Self.points(count: 1, ppm: 50)).intervalForNextBoot == nil)
        // The prior bounds it: within ±60 ppm, [27.8, 72.2] is cut at 60; within ±20, nothing is left.
        let clamped = try #require(
            FrequencyTracker(
                policy: ClockPolicy(priorTolerancePPM: 60), points: Self.points(count: 4, ppm: 50)
            )
            .intervalForNextBoot)
        #expect(
            clamped.upper == 60e-6 && abs(clamped.lower - (Self.fraction(ppm: 50) - pair - 20e-6)) < 1e-12)
        let outside = FrequencyTracker(
            policy: ClockPolicy(priorTolerancePPM: 20), points: Self.points(count: 4, ppm: 50))
        #expect(outside.intervalForNextBoot == nil)
    }

    // Soundness: 300 random histories of a constant frequency (−300…+300 ppm), each sync off by
    // up to its bound; the next boot's interval holds that frequency moved by the wander limit
    // plus the allowance either way (an interval holds all between its ends), and the boot after
    // it, with nothing measured in between, holds it moved by twice the allowance.
    @Test(
        "the carried interval holds every frequency within wander and allowance of the truth (300 histories)")
    func sound() {
        var random = SplitMix64(seed: 43)
        var carried = 0
        for _ in 0..<300 {
            let ppm = Double(Int64.random(in: -300_000...300_000, using: &random)) / 1000
            var tracker = FrequencyTracker()
            var trueElapsed = Duration.zero
            for _ in 0..<Int.random(in: 2...12, using: &random) {
                trueElapsed += .milliseconds(Int64.random(in: 1_000...7_200_000, using: &random))
                let bound = Duration.microseconds(Int64.random(in: 50...20_000, using: &random))
                let error = Duration.nanoseconds(
                    Int64.random(in: -bound.truncatedNanoseconds...bound.truncatedNanoseconds, using: &random)
                )
                tracker.add(
                    FrequencyTracker.Point(
                        base: TimeBaseInstant(awake: .seconds(10) + trueElapsed + trueElapsed * (ppm * 1e-6)),
                        trueTime: UnixTime(seconds: 1_780_000_000) + trueElapsed + error, errorBound: bound))
            }
            let f = Self.fraction(ppm: ppm)
            var next = FrequencyTracker()
            guard next.carry(from: tracker), let interval = next.carried else { continue }
            carried += 1
            for moved in [f - 20e-6, f + 20e-6] {
                let inPrior = min(max(moved, -500e-6), 500e-6)
                #expect(interval.lower <= inPrior && inPrior <= interval.upper, "\(ppm) ppm: \(interval)")
            }
            if let again = next.intervalForNextBoot {
                for moved in [f - 30e-6, f + 30e-6] {
                    let inPrior = min(max(moved, -500e-6), 500e-6)
                    #expect(again.lower <= inPrior && inPrior <= again.upper, "\(ppm) ppm twice: \(again)")
                }
            }
        }
        #expect(carried > 250)
    }

    // This boot's pairs decide with the carried interval: a short pair (±160 ppm) leaves it as it
    // is; one that contradicts it (this boot at −20 ppm against +50 ± 22) resets the history and
    // drops it. A discontinuity drops it; a leap second keeps it.
    @Test("this boot's pairs intersect with it; a contradiction or a reset drops it")
    func thisBoot() throws {
        let earlier = FrequencyTracker(points: Self.points(count: 4, ppm: 50))
        let carried = try #require(earlier.intervalForNextBoot)
        var tracker = FrequencyTracker()
        tracker.carry(from: earlier)
        let short = Self.points(
            count: 2, spacing: 20, ppm: 50, bound: .microseconds(1500), awakeOrigin: .seconds(7))
        for point in short { #expect(tracker.add(point) == nil) }
        let both = tracker.interval(at: short[1].base)
        #expect(both == carried, "\(both)")
        // An hour's pair at +62 ppm (±0.56 ppm, plus 10 ppm of wander) narrows it: [51.4, 72.2].
        var narrowed = FrequencyTracker()
        narrowed.carry(from: earlier)
        let long = Self.points(
            count: 2, spacing: 3600, ppm: 62, bound: .milliseconds(1), awakeOrigin: .seconds(7))
        for point in long { #expect(narrowed.add(point) == nil) }
        let tight = narrowed.interval(at: long[1].base)
        #expect(
            tight.upper == carried.upper
                && abs(tight.lower - Self.fraction(ppm: 62) + 2e-3 / 3600 + 10e-6) < 1e-9)
        #expect(tight.rateLimit < carried.halfWidth && tight.rateLimit >= tight.halfWidth)

        var contradicted = FrequencyTracker()
        contradicted.carry(from: earlier)
        let slow = Self.points(count: 2, spacing: 600, ppm: -20, awakeOrigin: .seconds(7))
        #expect(contradicted.add(slow[0]) == nil)
        #expect(contradicted.add(slow[1]) == .frequencyChanged)
        #expect(contradicted.carried == nil && contradicted.resetCount == 1 && contradicted.points.count == 2)
        #expect(abs(contradicted.interval(at: slow[1].base).center - Self.fraction(ppm: -20)) < 1e-9)
        // A tracker that saw the oscillator move takes nothing from an earlier boot.
        let retook = contradicted.carry(from: earlier)
        #expect(!retook && contradicted.carried == nil)

        var jumped = FrequencyTracker()
        jumped.carry(from: earlier)
        jumped.reset(keeping: slow[0], reason: .discontinuity)
        #expect(jumped.carried == nil && jumped.resetCount == 1 && jumped.lastReset == .discontinuity)
        var leapt = FrequencyTracker()
        leapt.carry(from: earlier)
        leapt.reset(keeping: slow[0], reason: .leapSecond)
        #expect(leapt.carried == carried && leapt.resetCount == 0)
    }

    // What a file hands over is checked before it is carried: not finite, out of order, nothing
    // within the prior, or no narrower than it, and it is not an interval to carry.
    @Test("values that are not a narrower interval within the prior are never carried")
    func hostile() {
        let policy = ClockPolicy()
        #expect(FrequencyInterval.carried(lower: .nan, upper: 10e-6, policy: policy) == nil)
        #expect(FrequencyInterval.carried(lower: -.infinity, upper: 10e-6, policy: policy) == nil)
        #expect(FrequencyInterval.carried(lower: 40e-6, upper: 10e-6, policy: policy) == nil)
        #expect(FrequencyInterval.carried(lower: 600e-6, upper: 700e-6, policy: policy) == nil)
        #expect(FrequencyInterval.carried(lower: -1, upper: 1, policy: policy) == nil)
        let cut = FrequencyInterval.carried(lower: 400e-6, upper: 900e-6, policy: policy)
        #expect(cut?.lower == 400e-6 && cut?.upper == 500e-6 && abs((cut?.rateLimit ?? 0) - 50e-6) < 1e-15)
        // Two carried intervals that do not overlap: one of them is wrong, neither is kept.
        var tracker = FrequencyTracker()
        tracker.mergeCarried(FrequencyInterval.carried(lower: 10e-6, upper: 30e-6, policy: policy))
        #expect(tracker.carried?.upper == 30e-6)
        tracker.mergeCarried(FrequencyInterval.carried(lower: 20e-6, upper: 50e-6, policy: policy))
        #expect(tracker.carried?.lower == 20e-6 && tracker.carried?.upper == 30e-6)
        tracker.mergeCarried(FrequencyInterval.carried(lower: 60e-6, upper: 70e-6, policy: policy))
        #expect(tracker.carried == nil)
    }
}
