import NetClockPlatform
import TimeValues

/// How an anchor is carried along the time base: the frequency correction applied to awake time,
/// and the bound's growth, at most `min(halfWidth + wanderRate·|u|, rateLimit)` per awake second at
/// `u` seconds from `reference` (the awake time put at the far end), plus `suspendTolerance` of the
/// suspended time and, once a suspend has passed, `suspendResolution`. Unmeasured, it grows
/// linearly at the prior tolerance. The derivation: the HowTheErrorBoundWorks article, "Frequency".
struct HoldoverAging: Sendable, Hashable {
    /// The oscillator's frequency error that is corrected for: true awake time is awake time ×
    /// (1 − `frequencyError`); positive when the oscillator runs fast.
    var frequencyError: Double
    /// The half-width of the frequency interval at the anchor, as a fraction.
    var halfWidth: Double
    /// How fast the frequency may wander, as a fraction per second of elapsed time.
    var wanderRate: Double
    /// The most the frequency can be off `frequencyError`, however long it has been; at least
    /// `halfWidth`.
    var rateLimit: Double
    /// The tolerance of suspended time, as a fraction.
    var suspendTolerance: Double
    /// Added once suspended time has passed.
    var suspendResolution: Duration
    /// Whether the interval was measured from syncs (rather than being the prior tolerance).
    var isMeasured: Bool
    /// Where on the time base (total awake plus suspended time) the interval holds.
    var reference: Duration = .zero

    /// Aging at a fixed tolerance with no correction and no wander (the prior alone).
    /// A change of the suspended time no larger than this is the pairing of `CLOCK_BOOTTIME` with
    /// `CLOCK_MONOTONIC` reads (a few nanoseconds either way, which the reading's uncertainty
    /// covers), not a suspend: no resume takes less than milliseconds. Only a larger change adds
    /// ``suspendResolution`` to the bound (issue 29: a 1 s bound after a few nanoseconds of noise).
    static let suspendNoise: Duration = .microseconds(100)

    /// ``suspendNoise`` in whole nanoseconds.
    static let suspendNoiseNanoseconds: Int64 = 100_000

    static func prior(_ policy: ClockPolicy) -> HoldoverAging {
        let tolerance = policy.priorFraction
        return HoldoverAging(
            frequencyError: 0, halfWidth: tolerance, wanderRate: 0, rateLimit: tolerance,
            suspendTolerance: policy.suspendToleranceFraction,
            suspendResolution: policy.sanitizedSuspendResolution, isMeasured: false)
    }

    /// The rate the bound grows at `elapsed` seconds after the anchor.
    func growthRate(afterSeconds elapsed: Double) -> Double {
        min(halfWidth + wanderRate * abs(elapsed), rateLimit)
    }

    /// Where `H` stops growing quadratically: `(rateLimit − halfWidth) / wanderRate`, in the unit
    /// `wanderRate` is given per (infinite without wander).
    static func knee(halfWidth: Double, wanderRate: Double, rateLimit: Double) -> Double {
        guard wanderRate > 0, rateLimit > halfWidth else { return rateLimit > halfWidth ? .infinity : 0 }
        return (rateLimit - halfWidth) / wanderRate
    }

    /// `H(x₀ + width) − H(x₀)` for `x₀, width ≥ 0`, in the unit they are given in, with
    /// `halfWanderRate` (half the wander rate) per that unit: computed piece by piece rather than
    /// as a difference, so that it is exact wherever `H` is linear (always, for the prior).
    @inline(__always)
    static func increase(
        from x0: Double, by width: Double, halfWidth: Double, halfWanderRate: Double, knee: Double,
        rateLimit: Double
    ) -> Double {
        let x1 = x0 + width
        if x0 >= knee { return rateLimit * width }
        if x1 <= knee { return width * (halfWidth + halfWanderRate * (x0 + x1)) }
        let below = knee - x0
        return below * (halfWidth + halfWanderRate * (x0 + knee)) + rateLimit * (width - below)
    }

    /// `H(x₀ + width) − H(x₀)` in seconds.
    func phaseIncrease(from x0: Double, by width: Double) -> Double {
        Self.increase(
            from: x0, by: width, halfWidth: halfWidth, halfWanderRate: wanderRate / 2,
            knee: Self.knee(halfWidth: halfWidth, wanderRate: wanderRate, rateLimit: rateLimit),
            rateLimit: rateLimit)
    }

    /// `H(x)` in seconds for `x` seconds.
    func phaseAllowance(seconds x: Double) -> Double {
        phaseIncrease(from: 0, by: abs(x))
    }

    /// The bound's growth between time-base instants `from` and `to` (in either order), rounded up
    /// to a whole nanosecond plus one.
    func growth(from: TimeBaseInstant, to: TimeBaseInstant) -> Duration {
        let a = abs(to.awake - from.awake).secondsDouble
        let s = abs(to.suspended - from.suspended).secondsDouble
        let far = max(abs(from.total - reference), abs(to.total - reference)).secondsDouble
        // The awake time at the far end of the stretch: from far − a to far (a ≤ far, since the
        // stretch is a long); no awake time can lie farther out.
        var seconds = phaseIncrease(from: max(0, far - a), by: min(a, far))
        var extra = Duration.zero
        if s > 0 {
            seconds += s * suspendTolerance
            if abs(to.suspended - from.suspended) > Self.suspendNoise { extra = suspendResolution }
        }
        guard seconds > 0 else { return extra + .nanoseconds(1) }
        return extra + .nanoseconds(Int64((seconds * 1e9).rounded(.up)) + 1)
    }

    /// The true time that passes over `awake` and `suspended` time by the best estimate: awake time
    /// less the frequency correction (in whole nanoseconds, truncated, like the published
    /// estimate), plus suspended time.
    func trueElapsed(awake: Duration, suspended: Duration) -> Duration {
        guard frequencyError != 0 else { return awake + suspended }
        let correction = Int64(Double(awake.attoseconds) * frequencyError / 1e9)
        return awake - .nanoseconds(correction) + suspended
    }
}

extension HoldoverAging {
    /// The aging a frequency interval that holds at `reference` gives under `policy`.
    init(_ interval: FrequencyInterval, policy: ClockPolicy, reference: TimeBaseInstant) {
        guard interval.isMeasured else {
            self = .prior(policy)
            self.reference = reference.total
            return
        }
        self.init(
            frequencyError: interval.center, halfWidth: interval.halfWidth,
            wanderRate: policy.wanderRatePerSecond * (1 + policy.priorFraction),
            rateLimit: max(interval.rateLimit, interval.halfWidth),
            suspendTolerance: policy.suspendToleranceFraction,
            suspendResolution: policy.sanitizedSuspendResolution, isMeasured: true,
            reference: reference.total)
    }
}
