import NetClockPlatform
import SNTP

/// The anchor and its aging in the form ``AnchoredClock/now()`` computes with: plain integers and
/// doubles, no references, so that it can be published through atomics.
///
/// Times are nanoseconds on the time base. The fast path (``estimate(awakeNanoseconds:)``) holds
/// while the suspend epoch equals ``epoch``: the suspended time since the anchor is then exactly
/// ``suspendedNanoseconds``, folded in advance into ``fastTrueAttoseconds``, ``fastBound`` and the
/// growth coefficients, so a reading costs the raw clock read, the epoch check, one comparison
/// and a few multiplications. The bound's growth over `A` ns awake after `S` ns suspended is
/// ``HoldoverAging``'s `H(S + A) − H(S)`: quadratic (`A·(linearGrowth + halfWanderRate·A)`) until
/// the growth rate reaches ``rateLimit`` after ``kneeAwake`` ns, linear beyond.
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
    /// The frequency correction (0 until the frequency is measured).
    var frequencyError: Double
    /// `H`'s linear coefficient for awake time after the suspended time: the growth rate then.
    var linearGrowth: Double
    /// Half the wander rate, per nanosecond.
    var halfWanderRate: Double
    /// Awake nanoseconds after which the growth rate is at ``rateLimit`` (0 when it already is,
    /// infinite when it never gets there).
    var kneeAwake: Double
    /// The growth over the first ``kneeAwake`` ns.
    var kneeGrowth: Double
    /// The growth rate's ceiling.
    var rateLimit: Double
    /// Bit 0: present; bit 1: drift corrected; bit 2: authenticated; bits 8–15: source code; bits
    /// 32–63: server id.
    var metadata: UInt64

    // MARK: What the slow path needs besides

    /// The anchor's suspended time on the time base, in whole nanoseconds (rounded up).
    var anchorSuspended: Int64
    /// The bound at the anchor, rounded up to whole nanoseconds, with the rounding allowances.
    var boundNanoseconds: Int64
    /// The frequency interval's half-width at the anchor.
    var halfWidth: Double
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
    init(anchor held: HeldAnchor, aging: HoldoverAging, check: TimeBaseReading) {
        let anchor = held.anchor
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
        // One nanosecond more covers truncating the correction, one more the shift to a whole
        // nanosecond and one more rounding the suspended part up.
        let roundingAllowance: Int64 =
            (subNanosecond == 0 ? 0 : 1) + (aging.frequencyError == 0 ? 0 : 1)
            + (held.base.suspended.attoseconds % 1_000_000_000 == 0 ? 0 : 1)
        self.boundNanoseconds = anchor.errorBound.nanosecondsRoundedUp + roundingAllowance
        self.frequencyError = aging.frequencyError
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
        let s = Double(since)
        if s >= knee {
            self.linearGrowth = rateLimit
            self.kneeAwake = 0
            self.kneeGrowth = 0
        } else {
            self.linearGrowth = aging.halfWidth + 2 * halfWanderRate * s
            self.kneeAwake = knee - s
            self.kneeGrowth = knee.isFinite ? (knee - s) * (aging.halfWidth + halfWanderRate * (s + knee)) : 0
        }
        var suspendGrowth = 0.0
        if since > 0 {
            suspendGrowth = s * aging.suspendTolerance + Double(suspendResolutionNanoseconds)
        }
        self.fastBound = boundNanoseconds + Int64(suspendGrowth.rounded(.up))
        var bits: UInt64 = 1
        if aging.isMeasured { bits |= 2 }
        if anchor.isAuthenticated { bits |= 4 }
        bits |= UInt64(anchor.source.code) << 8
        bits |= UInt64(ServerNames.identifier(for: anchor.server)) << 32
        self.metadata = bits
    }

    /// The estimate at awake reading `awake` (ns) while the suspend epoch is ``epoch``;
    /// allocation-free.
    @inline(__always)
    func estimate(awakeNanoseconds awake: Int64) -> TimeEstimate {
        Self.estimate(
            awake: awake, fastTrueAttoseconds: fastTrueAttoseconds, anchorAwake: anchorAwake,
            fastBound: fastBound, suspendedNanoseconds: suspendedNanoseconds, frequencyError: frequencyError,
            linearGrowth: linearGrowth, halfWanderRate: halfWanderRate, kneeAwake: kneeAwake,
            kneeGrowth: kneeGrowth, rateLimit: rateLimit, metadata: metadata)
    }

    /// The fast estimate from the published fields (see ``AnchorCell``'s hot path).
    @inline(__always)
    static func estimate(
        awake: Int64, fastTrueAttoseconds: Int128, anchorAwake: Int64, fastBound: Int64,
        suspendedNanoseconds: Int64, frequencyError: Double, linearGrowth: Double, halfWanderRate: Double,
        kneeAwake: Double, kneeGrowth: Double, rateLimit: Double, metadata: UInt64
    ) -> TimeEstimate {
        let elapsed = awake &- anchorAwake
        let elapsedDouble = Double(elapsed)
        let a = elapsedDouble.magnitude
        // |elapsed| < 2^63 ns, the correction is at most 1e-3 and the growth rate at most 1e-3 plus
        // the wander limit, so these stay inside Int64. Conversions truncate: the correction is
        // then off by under 1 ns, which the published bound already includes, and the growth is
        // rounded up by hand so the bound stays sound.
        let correction = Int64(elapsedDouble * frequencyError)
        let exactGrowth =
            a <= kneeAwake
            ? a * (linearGrowth + halfWanderRate * a) : kneeGrowth + rateLimit * (a - kneeAwake)
        var growth = Int64(exactGrowth)
        if Double(growth) < exactGrowth { growth &+= 1 }
        let trueElapsed = elapsed &- correction
        return TimeEstimate(
            timeAttoseconds: fastTrueAttoseconds &+ Int128(trueElapsed) &* 1_000_000_000,
            boundNanoseconds: fastBound &+ growth, ageNanoseconds: elapsed &+ suspendedNanoseconds,
            metadata: metadata)
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
        if since != 0 { exactGrowth += s * suspendTolerance + Double(suspendResolutionNanoseconds) }
        exactGrowth += Double(max(0, uncertainty))
        var growth = Int64(exactGrowth)
        if Double(growth) < exactGrowth { growth &+= 1 }
        let correction = Int64(elapsedDouble * frequencyError)
        // fastTrueAttoseconds includes the suspended time as of the epoch.
        let trueElapsed = elapsed &- correction &+ (since &- suspendedNanoseconds)
        return TimeEstimate(
            timeAttoseconds: fastTrueAttoseconds &+ Int128(trueElapsed) &* 1_000_000_000,
            boundNanoseconds: boundNanoseconds &+ growth, ageNanoseconds: elapsed &+ since, metadata: metadata
        )
    }
}
