/// Where the oscillator's frequency error lies at one instant (fractions; positive when the
/// oscillator runs fast), as ``FrequencyTracker/interval(at:)`` found it.
package struct FrequencyInterval: Sendable, Hashable {
    /// The lowest frequency error still possible.
    package var lower: Double
    /// The highest frequency error still possible.
    package var upper: Double
    /// The most the frequency error can ever differ from ``center`` while the wander model holds:
    /// the ceiling of the bound's growth rate.
    package var rateLimit: Double
    /// Whether the interval was measured (two points or more, or carried from an earlier boot)
    /// rather than being the prior: the clock corrects by its ``center``.
    package var isMeasured: Bool
    /// Whether the measured interval lies outside the prior tolerance (which was then dropped).
    package var exceedsPrior: Bool

    /// The middle of the interval: the correction applied.
    package var center: Double { (lower + upper) / 2 }
    /// Half the interval's width.
    package var halfWidth: Double { (upper - lower) / 2 }

    /// An interval carried from an earlier boot (``FrequencyTracker/carried``), already widened
    /// for the reboot: `lower...upper` clamped to `policy`'s prior, its rate limit its half-width
    /// (the widening already holds the whole wander); nil when the ends are not finite or out of
    /// order, when nothing of it is within the prior, or when it is no narrower than the prior.
    package static func carried(lower: Double, upper: Double, policy: ClockPolicy) -> FrequencyInterval? {
        let prior = policy.priorFraction
        guard lower.isFinite, upper.isFinite, lower <= upper else { return nil }
        let lower = max(lower, -prior)
        let upper = min(upper, prior)
        guard lower <= upper, lower > -prior || upper < prior else { return nil }
        return FrequencyInterval(
            lower: lower, upper: upper, rateLimit: (upper - lower) / 2, isMeasured: true, exceedsPrior: false)
    }

    /// The common part of two intervals, nil when they do not overlap.
    func overlap(_ other: FrequencyInterval) -> (lower: Double, upper: Double)? {
        let lower = max(self.lower, other.lower)
        let upper = min(self.upper, other.upper)
        return lower <= upper ? (lower, upper) : nil
    }
}
