import LoopbackServers
import Testing
import TimeValues

@testable import ClockCore

/// The hot path's integer estimate (``PublishedAnchor``'s fixed-point forms) against the slow
/// path's exact one (``HoldoverAging/increase(from:by:halfWidth:halfWanderRate:knee:rateLimit:)``
/// in doubles) at the same reading: the same time to the attosecond, and a bound never tighter and
/// at most a few nanoseconds looser, for every kind of aging the clock publishes (the prior, a
/// measured interval with wander below and beyond its knee, after a suspend) and elapsed times
/// from 0 to the end of the span where the fast path holds.
struct FastPathTests {
    /// An aging and the suspended time since the anchor at which it is published.
    struct Case: CustomStringConvertible {
        var name: String
        var aging: HoldoverAging
        var suspended: Duration = .zero
        var description: String { name }
    }

    static let cases: [Case] = {
        func measured(
            _ name: String, error: Double, halfWidth: Double, wander: Double, limit: Double,
            suspended: Duration = .zero
        ) -> Case {
            Case(
                name: name,
                aging: HoldoverAging(
                    frequencyError: error, halfWidth: halfWidth, wanderRate: wander, rateLimit: limit,
                    suspendTolerance: 50e-6, suspendResolution: .milliseconds(1), isMeasured: true),
                suspended: suspended)
        }
        return [
            Case(name: "prior", aging: .prior(ClockPolicy())),
            // 6 ppm measured, wandering 1 ppm a day up to 500 ppm: the knee 20 months away, beyond
            // the 78 hours of the quadratic product, so the span stops there.
            measured(
                "measured, slow wander", error: 12.5e-6, halfWidth: 6e-6, wander: 1e-6 / 86_400, limit: 500e-6
            ),
            // Fast wander: the knee (1.2 hours) inside the span, so both branches are taken.
            measured(
                "measured, knee within hours", error: -3e-6, halfWidth: 2e-6, wander: 1e-7, limit: 500e-6),
            measured("measured, no wander", error: 40e-6, halfWidth: 0.3e-6, wander: 0, limit: 500e-6),
            measured(
                "measured, after an 8-hour suspend", error: 7e-6, halfWidth: 5e-6, wander: 1e-8,
                limit: 500e-6,
                suspended: .seconds(8 * 3600)),
            // Past its knee already at the anchor: linear at the ceiling from the start.
            measured(
                "measured, suspended past the knee", error: 1e-6, halfWidth: 5e-6, wander: 1e-6,
                limit: 100e-6,
                suspended: .seconds(3600)),
            // A rate no oscillator has: the fast path must never hold.
            measured("a rate of one half", error: 0, halfWidth: 0.6, wander: 0, limit: 0.6),
        ]
    }()

    static let anchorAwake: Int64 = 123_456_789_012
    static let anchorTime: Int64 = 1_790_000_000_000_000_000

    static func published(_ c: Case) -> PublishedAnchor {
        let anchor = Anchor(
            trueTime: UnixTime(sinceEpoch: .nanoseconds(anchorTime)),
            monotonic: MonotonicInstant(sinceOrigin: .nanoseconds(anchorAwake)),
            errorBound: .microseconds(250), source: .ntp, server: "fast.example")
        let base = TimeBaseInstant(awake: .nanoseconds(anchorAwake))
        var aging = c.aging
        aging.reference = base.total
        return PublishedAnchor(
            anchor: HeldAnchor(anchor: anchor, base: base), aging: aging,
            check: TimeBaseReading(
                exchange: anchor.monotonic,
                base: TimeBaseInstant(awake: .nanoseconds(anchorAwake), suspended: c.suspended)))
    }

    /// Elapsed times that reach every edge: the first nanoseconds, round numbers, either side of the
    /// knee, either side of 2⁴⁸ ns and of the span's end, and a seeded spread between.
    static func elapsedTimes(_ published: PublishedAnchor) -> [Int64] {
        var times: [Int64] = [
            0, 1, 2, 3, 999, 1_000_000, 1_000_000_000, 3_600_000_000_000, 86_400_000_000_000,
        ]
        for edge in [published.kneeAwake, PublishedAnchor.quadraticSpan, Int64(clamping: published.fastSpan)]
        where edge > 2 && edge < Int64.max / 2 {
            times += [edge - 2, edge - 1, edge, edge + 1]
        }
        var generator = SplitMix64(seed: 45)
        for _ in 0..<2_000 {
            // Log-uniform over 1 ns to 2⁵⁵ ns (a year), so every scale gets its share.
            let exponent = Int(generator.next() % 55)
            times.append(Int64(1 << exponent) + Int64(generator.next() % (1 << UInt64(exponent))))
        }
        return times
    }

    @Test(arguments: cases)
    func theFastEstimateEqualsTheExactTimeWithABoundNeverTighter(_ c: Case) {
        let published = Self.published(c)
        var fastReadings = 0
        for elapsed in Self.elapsedTimes(published) {
            let awake = Self.anchorAwake + elapsed
            let exact = published.estimate(
                awakeNanoseconds: awake,
                suspendedNanoseconds: published.anchorSuspended + published.suspendedNanoseconds,
                uncertainty: 0)
            let estimate = published.estimate(awakeNanoseconds: awake)
            guard UInt64(elapsed) < published.fastSpan else {
                // Beyond the span the slow path answers, so the two are the same estimate.
                #expect(estimate == exact, "\(c), \(elapsed) ns")
                continue
            }
            fastReadings += 1
            #expect(estimate.timeAttoseconds == exact.timeAttoseconds, "\(c), \(elapsed) ns")
            #expect(estimate.ageNanoseconds == exact.ageNanoseconds, "\(c), \(elapsed) ns")
            // Never tighter than the exact bound; looser by the two floors the fixed-point forms
            // round up for (1 ns each) and the product's quantisation: elapsed × 3 units of 2⁻⁶⁴,
            // under 1 ns below 2⁶² ns.
            let looser = estimate.boundNanoseconds - exact.boundNanoseconds
            #expect(looser >= 0, "\(c), \(elapsed) ns: the fast bound is \(-looser) ns tighter")
            #expect(looser <= 4, "\(c), \(elapsed) ns: the fast bound is \(looser) ns looser")
        }
        if c.aging.rateLimit >= 0.5 {
            #expect(published.fastSpan == 0, "a rate of ½ and more never takes the fast path")
        } else {
            #expect(fastReadings > 1_000, "\(c): the fast path held for only \(fastReadings) readings")
        }
    }

    @Test func aReadingBeforeTheAnchorTakesTheSlowPath() {
        let published = Self.published(Self.cases[1])
        for before: Int64 in [1, 1_000, 1_000_000_000] {
            let awake = Self.anchorAwake - before
            let exact = published.estimate(
                awakeNanoseconds: awake, suspendedNanoseconds: published.anchorSuspended, uncertainty: 0)
            #expect(published.estimate(awakeNanoseconds: awake) == exact)
        }
    }
}
