import NetClockPlatform
import TimeValues

/// What an ``AnchoredClock`` knows about its oscillator's frequency at one moment: the correction
/// it applies, where the frequency error can lie now, and the history behind it. The CLI's
/// `frequency` JSON object reports it.
///
/// Frequencies are fractions (`…PPM` accessors in parts per million), positive when the
/// oscillator runs fast: a machine whose server gains 60 ppm on it has about −60 ppm.
package struct FrequencyEstimate: Sendable, Hashable {
    /// The frequency error corrected for (0 while only the prior is known).
    package var frequencyError: Double
    /// How far the frequency error can be from ``frequencyError`` now: the interval's half-width
    /// widened by the wander allowed since the anchor. The bound grows at this rate now.
    package var growthRate: Double
    /// The interval's half-width at the anchor, before any wander since.
    package var halfWidthAtAnchor: Double
    /// Whether the frequency was measured from two syncs or more, or carried from an earlier boot
    /// (else the prior tolerance holds).
    package var isMeasured: Bool
    /// Whether what an earlier boot measured is part of it (``FrequencyTracker/carried``): alone
    /// before this boot's syncs measure it, then intersected with what they measure.
    package var isCarried: Bool
    /// Whether the measurement lies outside the prior tolerance, which was then set aside.
    package var exceedsPrior: Bool
    /// The sync points in the history.
    package var syncCount: Int
    /// The time between the oldest and newest sync points (awake plus suspended).
    package var span: Duration
    /// The time since the newest sync point, nil without one.
    package var age: Duration?
    /// How many times the history was reset because a sync contradicted it.
    package var resetCount: Int
    /// Why the history was last reset, if ever.
    package var lastReset: FrequencyTracker.ResetReason?

    /// The estimate from a tracker, the aging published from it and the anchor's instant, at
    /// time-base instant `now`.
    init(tracker: FrequencyTracker, aging: HoldoverAging, anchor: TimeBaseInstant?, now: TimeBaseInstant) {
        frequencyError = aging.frequencyError
        halfWidthAtAnchor = aging.halfWidth
        let sinceAnchor = anchor.map { max(.zero, now.total - $0.total).secondsDouble } ?? 0
        growthRate = aging.growthRate(afterSeconds: sinceAnchor)
        isMeasured = aging.isMeasured
        isCarried = tracker.carried != nil
        exceedsPrior = anchor.map { tracker.interval(at: $0).exceedsPrior } ?? false
        syncCount = tracker.points.count
        if let first = tracker.points.first, let last = tracker.points.last {
            span = last.base.total - first.base.total
            age = max(.zero, now.total - last.base.total)
        } else {
            span = .zero
            age = nil
        }
        resetCount = tracker.resetCount
        lastReset = tracker.lastReset
    }

    /// An estimate from its parts (for reports built without a clock, e.g. tests).
    package init(
        frequencyError: Double, growthRate: Double, halfWidthAtAnchor: Double, isMeasured: Bool,
        isCarried: Bool = false, exceedsPrior: Bool = false, syncCount: Int, span: Duration, age: Duration?,
        resetCount: Int = 0, lastReset: FrequencyTracker.ResetReason? = nil
    ) {
        self.frequencyError = frequencyError
        self.growthRate = growthRate
        self.halfWidthAtAnchor = halfWidthAtAnchor
        self.isMeasured = isMeasured
        self.isCarried = isCarried
        self.exceedsPrior = exceedsPrior
        self.syncCount = syncCount
        self.span = span
        self.age = age
        self.resetCount = resetCount
        self.lastReset = lastReset
    }

    /// ``frequencyError`` in ppm.
    package var ppm: Double { frequencyError * 1e6 }
    /// The lower end of the interval now, in ppm.
    package var lowerPPM: Double { (frequencyError - growthRate) * 1e6 }
    /// The upper end of the interval now, in ppm.
    package var upperPPM: Double { (frequencyError + growthRate) * 1e6 }
    /// ``growthRate`` in ppm.
    package var growthRatePPM: Double { growthRate * 1e6 }
}
