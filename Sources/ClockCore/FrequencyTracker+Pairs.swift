import NetClockPlatform
import TimeValues

/// The pairs of sync points a ``FrequencyTracker`` measures the frequency with, and their
/// intersection (the HowTheErrorBoundWorks article, "Frequency").
extension FrequencyTracker {
    /// One pair's interval for the mean frequency between its points, before widening.
    struct Pair: Sendable, Hashable {
        var center: Double
        var halfWidth: Double
        /// The total time-base time of the pair's first point, in seconds.
        var start: Double
        /// The total time-base time of the pair's second point, in seconds.
        var end: Double

        /// How long before or after `instant` (seconds of total time-base time) the pair's farther
        /// point lies, in seconds.
        func age(at instant: Double) -> Double {
            max(abs(instant - start), abs(instant - end))
        }
    }

    /// Every usable pair of `points` (in time-base order).
    static func pairs(of points: [Point], policy: ClockPolicy) -> [Pair] {
        var pairs: [Pair] = []
        pairs.reserveCapacity(points.count * (points.count - 1) / 2)
        for i in points.indices {
            for j in points.indices where j > i {
                if let pair = pair(points[i], points[j], policy: policy) { pairs.append(pair) }
            }
        }
        return pairs
    }

    /// The intersection of `pairs` widened to `instant` (before, between or after them); nil when
    /// they do not intersect. With no pair it is the whole line (every frequency is allowed).
    static func intersection(of pairs: [Pair], at instant: TimeBaseInstant, policy: ClockPolicy)
        -> (
            lower: Double, upper: Double
        )?
    {
        var lower = -Double.infinity
        var upper = Double.infinity
        let jump = policy.wanderFraction
        let rate = policy.wanderRatePerSecond * (1 + policy.priorFraction)
        let limit = policy.wanderLimitFraction
        let now = instant.total.secondsDouble
        for pair in pairs {
            let width = pair.halfWidth + min(jump + rate * pair.age(at: now), limit)
            lower = max(lower, pair.center - width)
            upper = min(upper, pair.center + width)
        }
        guard lower <= upper else { return nil }
        return (lower, upper)
    }

    /// The mean-frequency interval of the pair (`first`, `second`), or nil when it is unusable: an
    /// awake span under ``minimumPairSpan`` or suspended time going backwards.
    static func pair(_ first: Point, _ second: Point, policy: ClockPolicy) -> Pair? {
        let (early, late) = first.base.total <= second.base.total ? (first, second) : (second, first)
        let awake = late.base.awake - early.base.awake
        let suspended = late.base.suspended - early.base.suspended
        guard awake >= minimumPairSpan, suspended >= .zero else { return nil }
        // Exact in Duration, then one division.
        let excess = awake + suspended - (late.trueTime - early.trueTime)
        let span = awake.secondsDouble
        var spread = (early.errorBound + late.errorBound).secondsDouble
        if suspended > .zero {
            spread += suspended.secondsDouble * policy.suspendToleranceFraction
            if suspended > HoldoverAging.suspendNoise {
                spread += policy.sanitizedSuspendResolution.secondsDouble
            }
        }
        return Pair(
            center: excess.secondsDouble / span, halfWidth: spread / span,
            start: early.base.total.secondsDouble, end: late.base.total.secondsDouble)
    }
}
