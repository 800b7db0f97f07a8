import NetClockPlatform
import TimeValues

/// The anchor and its aging in the form ``AnchoredClock/now()`` computes with: plain integers and
/// doubles, no references, so that it can be published through atomics.
///
/// Times are nanoseconds on the time base. The fast path (``estimate(awakeNanoseconds:)``) holds
/// while the suspend epoch equals ``epoch`` and the reading lies within ``fastSpan`` after the
/// anchor: the suspended time since the anchor is then exactly ``suspendedNanoseconds``, folded in
/// advance into ``fastTrueAttoseconds``, ``fastBound`` and the growth coefficients, so a reading
/// costs the raw clock read, the epoch check, one comparison and a few multiplications. The bound's
/// growth over `A` ns awake after `S` ns suspended is ``HoldoverAging``'s `H(S + A) − H(S)`:
/// quadratic (`A·(linearGrowth + halfWanderRate·A)`) until the growth rate reaches the limit after
/// ``kneeAwake`` ns, linear beyond (in integer arithmetic: ``rateFixed``).
struct PublishedAnchor: Sendable, Equatable {
    // MARK: The fast path's fields

    /// The true time at the anchor plus the suspended time since it, in attoseconds since the Unix
    /// epoch, shifted along the line so that ``anchorAwake`` is a whole nanosecond.
    var fastTrueAttoseconds: Int128
    /// The anchor's awake time on the time base, in whole nanoseconds.
    var anchorAwake: Int64
    /// The bound at the anchor plus what the suspended time since it adds (`σ·S + q`), rounded up
    /// to whole nanoseconds.
    var fastBound: Int64
    /// The suspended time since the anchor as of ``epoch``, in nanoseconds.
    var suspendedNanoseconds: Int64
    /// The suspend epoch the fast path is valid for.
    var epoch: Int64
    /// The frequency correction in units of 2⁻⁶² (0 until the frequency is measured): applied in
    /// integer arithmetic, a multiply and a shift, exact to within a nanosecond.
    var frequencyFixed: Int64
    /// `H`'s linear coefficient for awake time after the suspended time: the growth rate then.
    var linearGrowth: Double
    /// Half the wander rate, per nanosecond.
    var halfWanderRate: Double
    /// Awake nanoseconds after which the growth rate is at its limit (0 when it already is,
    /// `Int64.max` when it never gets there).
    var kneeAwake: Int64
    /// The growth over the first ``kneeAwake`` ns, rounded up.
    var kneeGrowth: Int64
    /// The growth rate's ceiling in units of 2⁻⁶⁴, rounded up (unsigned: the fast path's growth is
    /// the high word of one product, no shift).
    var rateFixed: UInt64
    /// Bit 0: present; bit 1: drift corrected; bit 2: authenticated; bits 8–15: source code; bits
    /// 32–63: server id.
    var metadata: UInt64
    /// The leap-second schedule, applied only to estimates that reach it (``PublishedLeap/from``).
    var leap: PublishedLeap
    /// ``linearGrowth`` in units of 2⁻⁶⁴, rounded up, plus one unit for the floor of the wander
    /// part: the quadratic branch in integer arithmetic.
    var linearFixed: UInt64
    /// ``halfWanderRate`` in units of 2⁻¹¹² per nanosecond, rounded up: times the elapsed time
    /// shifted left by 16 bits, the high word is the wander part of the rate in units of 2⁻⁶⁴ (no
    /// shift after the product; elapsed times under 2⁴⁸ ns, 78 hours, ``quadraticSpan``).
    var wanderFixed: UInt64
    /// The awake nanoseconds after ``anchorAwake`` (`0..<fastSpan`) in which the fast estimate
    /// holds: it certainly does not reach ``leap`` (``PublishedLeap/from``, see
    /// ``fastLimit(leapFrom:)``) and the reading is not before the anchor, so that the hot path
    /// checks both with one unsigned comparison of its reading, before any arithmetic. 0 when the
    /// fast path never holds (a leap within reach, or a growth rate of ½ and more: no oscillator).
    var fastSpan: UInt64

    // MARK: What the slow path needs besides

    /// The anchor's suspended time on the time base, in whole nanoseconds (rounded up).
    var anchorSuspended: Int64
    /// The bound at the anchor, rounded up to whole nanoseconds, with the rounding allowances.
    var boundNanoseconds: Int64
    /// The frequency interval's half-width at the anchor.
    var halfWidth: Double
    /// The growth rate's ceiling.
    var rateLimit: Double
    /// Elapsed nanoseconds after the anchor where the growth rate reaches ``rateLimit``.
    var knee: Double
    /// The suspend tolerance.
    var suspendTolerance: Double
    /// The suspend resolution, in nanoseconds.
    var suspendResolutionNanoseconds: Int64

    /// Converts a held anchor and its aging, valid while the suspend epoch is `check`'s and the
    /// suspended time is `check`'s; the anchor must be within its supported range, and the aging's
    /// interval must hold at the anchor's instant (its ``HoldoverAging/reference``), as
    /// ``AnchoredClock`` always computes it, or be the prior (which grows linearly anywhere).
    init(anchor held: HeldAnchor, aging: HoldoverAging, check: TimeBaseReading, smearsLeaps: Bool = false) {
        let anchor = held.anchor
        self.leap = PublishedLeap(anchor.leap, anchorTime: anchor.trueTime, smear: smearsLeaps)
        let awake = held.base.awake.attoseconds
        let (nanoseconds, subNanosecond) = awake.quotientAndRemainder(dividingBy: 1_000_000_000)
        let suspended = held.base.suspended.nanosecondsRoundedUp
        let since = max(0, check.base.suspended.truncatedNanoseconds &- suspended)
        self.anchorAwake = Int64(truncatingIfNeeded: nanoseconds)
        self.anchorSuspended = suspended
        self.suspendedNanoseconds = since
        self.epoch = check.epoch
        // Moving the anchor back by the sub-nanosecond part along the line keeps it exact to within
        // subNanosecond × frequency error, under 10⁻¹² s.
        self.fastTrueAttoseconds =
            anchor.trueTime.sinceEpoch.attoseconds - subNanosecond + Int128(since) * 1_000_000_000
        // Two nanoseconds more cover the fixed-point correction (its quantisation and its floor),
        // one the shift to a whole nanosecond and one rounding the suspended part up.
        let roundingAllowance: Int64 =
            (subNanosecond == 0 ? 0 : 1) + (aging.frequencyError == 0 ? 0 : 2)
            + (held.base.suspended.attoseconds % 1_000_000_000 == 0 ? 0 : 1)
        self.boundNanoseconds = anchor.errorBound.nanosecondsRoundedUp + roundingAllowance
        self.frequencyFixed = Self.fixed(aging.frequencyError)
        self.halfWidth = aging.halfWidth
        self.halfWanderRate = aging.wanderRate / 2e9
        let rateLimit = max(aging.rateLimit, aging.halfWidth)
        self.rateLimit = rateLimit
        let knee = HoldoverAging.knee(
            halfWidth: aging.halfWidth, wanderRate: aging.wanderRate / 1e9, rateLimit: rateLimit)
        self.knee = knee
        self.suspendTolerance = aging.suspendTolerance
        self.suspendResolutionNanoseconds = aging.suspendResolution.nanosecondsRoundedUp
        // H(S + A) − H(S) as a function of A alone, for the fast path's S.
        self.rateFixed = Self.fixedRoundingUp(rateLimit)
        let s = Double(since)
        if s >= knee {
            self.linearGrowth = rateLimit
            self.kneeAwake = 0
            self.kneeGrowth = 0
        } else if knee.isFinite && knee - s < 0x1p62 {
            self.linearGrowth = aging.halfWidth + 2 * halfWanderRate * s
            self.kneeAwake = Int64(knee - s)  // truncated: the quadratic part ends a little early
            let below = Double(kneeAwake)
            self.kneeGrowth =
                Int64((below * (aging.halfWidth + halfWanderRate * (2 * s + below))).rounded(.up)) + 1
        } else {
            self.linearGrowth = aging.halfWidth + 2 * halfWanderRate * s
            self.kneeAwake = .max
            self.kneeGrowth = 0
        }
        var suspendGrowth = 0.0
        if since > 0 {
            suspendGrowth = s * aging.suspendTolerance
            if since > HoldoverAging.suspendNoiseNanoseconds {
                suspendGrowth += Double(suspendResolutionNanoseconds)
            }
        }
        // Rounded up as the slow path rounds it: truncated, plus 1 ns when there is anything.
        self.fastBound = boundNanoseconds + (suspendGrowth > 0 ? Int64(suspendGrowth) + 1 : 0)
        var bits: UInt64 = 1
        if aging.isMeasured { bits |= 2 }
        if anchor.isAuthenticated { bits |= 4 }
        bits |= UInt64(anchor.source.code) << 8
        bits |= UInt64(ServerNames.identifier(for: anchor.server)) << 32
        self.metadata = bits | leap.reportBits
        self.linearFixed = 0
        self.wanderFixed = 0
        self.fastSpan = 0
        setFastPathFixedPoint(rateLimit: rateLimit)
        self.fastSpan = Self.span(limit: fastLimit(leapFrom: leap.from))
        // The quadratic branch's product holds for elapsed times under 2⁴⁸ ns: beyond, with wander
        // (a knee more than 78 hours away, so a tiny wander rate), the slow path answers.
        if wanderFixed != 0 && kneeAwake > Self.quadraticSpan {
            self.fastSpan = min(fastSpan, UInt64(Self.quadraticSpan))
        }
    }

    /// The estimate at awake reading `awake` (ns) while the suspend epoch is ``epoch``: the fast
    /// estimate within ``fastSpan`` after the anchor, the full one elsewhere; allocation-free.
    func estimate(awakeNanoseconds awake: Int64) -> TimeEstimate {
        let elapsed = awake &- anchorAwake
        guard UInt64(bitPattern: elapsed) < fastSpan else {
            return estimate(
                awakeNanoseconds: awake, suspendedNanoseconds: anchorSuspended &+ suspendedNanoseconds,
                uncertainty: 0)
        }
        let estimate = Self.estimate(
            elapsed: elapsed, fastTrueAttoseconds: fastTrueAttoseconds,
            fastBound: fastBound, suspendedNanoseconds: suspendedNanoseconds, frequencyFixed: frequencyFixed,
            linearFixed: linearFixed, wanderFixed: wanderFixed, kneeAwake: kneeAwake,
            kneeGrowth: kneeGrowth, rateFixed: rateFixed, metadata: metadata,
            leapReported: leap.reportedInstant)
        if leap.applies(time: estimate.timeAttoseconds, bound: estimate.boundNanoseconds) {
            return Self.leapEstimate(
                time: estimate.timeAttoseconds, bound: estimate.boundNanoseconds,
                age: estimate.ageNanoseconds,
                metadata, leap)
        }
        return estimate
    }

    /// `frequency` in units of 2⁻⁶² (clamped to ±1, far beyond any real oscillator).
    static func fixed(_ frequency: Double) -> Int64 {
        guard frequency.isFinite else { return 0 }
        return Int64((min(1, max(-1, frequency)) * 0x1p62).rounded())
    }

    /// `rate` in units of 2⁻⁶⁴, rounded up (`UInt64.max` for 1 and more).
    static func fixedRoundingUp(_ rate: Double) -> UInt64 {
        guard rate.isFinite, rate > 0 else { return rate > 0 ? .max : 0 }
        let scaled = (rate * 0x1p64).rounded(.up)
        return scaled < 0x1p64 ? UInt64(scaled) : .max
    }

    /// The elapsed nanoseconds below which the quadratic branch's product is exact: 2⁴⁸ (78 hours).
    static let quadraticSpan: Int64 = 1 << 48

    /// ``fastSpan`` for the most awake nanoseconds `limit` after the anchor at which the fast
    /// estimate holds (none when negative).
    static func span(limit: Int64) -> UInt64 {
        limit < 0 ? 0 : UInt64(limit) + 1
    }

    /// `⌊elapsed × fixed / 2⁶²⌋`: the correction for `elapsed` ns, within 2 ns of the exact
    /// `elapsed × frequency` (one for the quantisation of `fixed` over |elapsed| < 2⁶³ ns, one for
    /// the floor).
    @inline(__always)
    static func correction(_ elapsed: Int64, _ fixed: Int64) -> Int64 {
        let (high, low) = elapsed.multipliedFullWidth(by: fixed)
        return (high &<< 2) | Int64(truncatingIfNeeded: low &>> 62)
    }

    /// `⌊elapsed × rate / 2⁶⁴⌋` for `elapsed ≥ 0`: the bound's growth over `elapsed` ns at a rate in
    /// units of 2⁻⁶⁴ (``rateFixed``), floored; the fast path adds 1 ns.
    @inline(__always)
    static func correction(_ elapsed: Int64, _ rate: UInt64) -> Int64 {
        Int64(bitPattern: UInt64(bitPattern: elapsed).multipliedFullWidth(by: rate).high)
    }

    /// The estimate at any time-base reading (`awake` and `suspended` in ns since boot, read
    /// together within `uncertainty` ns): the slow path after a suspend or a wall-clock step
    /// changed the epoch, and for instants other than now.
    func estimate(awakeNanoseconds awake: Int64, suspendedNanoseconds suspended: Int64, uncertainty: Int64)
        -> TimeEstimate
    {
        let since = suspended &- anchorSuspended
        let elapsed = awake &- anchorAwake
        let elapsedDouble = Double(elapsed)
        let s = Double(since.magnitude)
        var exactGrowth = HoldoverAging.increase(
            from: s, by: elapsedDouble.magnitude, halfWidth: halfWidth, halfWanderRate: halfWanderRate,
            knee: knee, rateLimit: rateLimit)
        if since != 0 { exactGrowth += s * suspendTolerance }
        if since.magnitude > HoldoverAging.suspendNoiseNanoseconds {
            exactGrowth += Double(suspendResolutionNanoseconds)
        }
        exactGrowth += Double(max(0, uncertainty))
        // Truncated and one nanosecond added (none when there is nothing to grow): at least the
        // exact growth, at most 1 ns more, with no second conversion to compare against.
        let growth = Int64(exactGrowth) &+ (exactGrowth > 0 ? 1 : 0)
        let correction = Self.correction(elapsed, frequencyFixed)
        // fastTrueAttoseconds includes the suspended time as of the epoch.
        let trueElapsed = elapsed &- correction &+ (since &- suspendedNanoseconds)
        let time = fastTrueAttoseconds &+ Int128(trueElapsed) &* 1_000_000_000
        let bound = boundNanoseconds &+ growth
        if leap.applies(time: time, bound: bound) {
            return Self.leapEstimate(time: time, bound: bound, age: elapsed &+ since, metadata, leap)
        }
        return TimeEstimate(
            timeAttoseconds: time, boundNanoseconds: bound, ageNanoseconds: elapsed &+ since,
            metadata: metadata,
            leapSeconds: leap.reportedInstant)
    }

    /// The estimate at `time` within `bound` with the leap schedule applied: off the hot path, taken
    /// only when the estimate reaches the leap (or an unknown month end).
    @inline(never)
    static func leapEstimate(
        time: Int128, bound: Int64, age: Int64, _ metadata: UInt64, _ leap: PublishedLeap
    )
        -> TimeEstimate
    {
        let applied = leap.apply(time: time, bound: bound)
        return TimeEstimate(
            timeAttoseconds: applied.time, boundNanoseconds: applied.bound, ageNanoseconds: age,
            metadata: metadata, leapSeconds: leap.reportedInstant)
    }
}
