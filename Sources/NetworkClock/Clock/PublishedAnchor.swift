import NetClockPlatform
import SNTP

/// The anchor and its aging in the form ``AnchoredClock/now()`` computes with: plain integers and
/// doubles, no references, so that it can be published through atomics.
///
/// Times are nanoseconds on the time base. The fast path (``estimate(awakeNanoseconds:)``) holds
/// while the suspend epoch equals ``epoch``: the suspended time since the anchor is then exactly
/// ``suspendedNanoseconds``, folded into ``trueAttoseconds`` and ``baseGrowth`` in advance, so a
/// reading costs one raw clock read, the epoch check and a few multiplications. The bound's
/// growth over `x` ns of elapsed time is ``HoldoverAging``'s `H(x)`, evaluated with the
/// coefficients below.
struct PublishedAnchor: Sendable, Equatable {
    /// The true time at the anchor plus the suspended time since it (``suspendedNanoseconds``), in
    /// attoseconds since the Unix epoch, shifted along the line so that ``anchorAwake`` is a whole
    /// nanosecond.
    var trueAttoseconds: Int128
    /// The anchor's awake time on the time base, in whole nanoseconds.
    var anchorAwake: Int64
    /// The anchor's suspended time on the time base, in whole nanoseconds.
    var anchorSuspended: Int64
    /// The error bound at the anchor instant, rounded up to whole nanoseconds.
    var boundNanoseconds: Int64
    /// The frequency correction (0 until the frequency is measured).
    var frequencyError: Double
    /// The bound's growth rate at the anchor (the frequency interval's half-width).
    var halfWidth: Double
    /// Half the wander rate, per nanosecond.
    var halfWanderRate: Double
    /// Where the growth rate reaches ``rateLimit``, in ns of elapsed time (infinite without it).
    var knee: Double
    /// The growth rate's ceiling.
    var rateLimit: Double
    /// The suspended time since the anchor as of ``epoch``, in nanoseconds.
    var suspendedNanoseconds: Int64
    /// `σ·S + q` for that suspended time `S`, in ns (0 when `S` is 0).
    var baseGrowth: Double
    /// The suspend epoch the fast path is valid for.
    var epoch: Int64
    /// The source of the anchor.
    var source: TimeSource
    /// The interned server name (see ``ServerNames``).
    var serverIdentifier: UInt32
    /// Whether `frequencyError` comes from a measured frequency.
    var isDriftCorrected: Bool
    /// Whether the anchor's time was authenticated (NTS).
    var isAuthenticated: Bool
    /// The suspend tolerance and resolution, for the slow path.
    var suspendTolerance: Double
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
        // Moving the anchor back by the sub-nanosecond part along the line keeps it exact to within
        // subNanosecond × frequency error, under 10⁻¹² s.
        self.trueAttoseconds =
            anchor.trueTime.sinceEpoch.attoseconds - subNanosecond + Int128(since) * 1_000_000_000
        self.anchorAwake = Int64(truncatingIfNeeded: nanoseconds)
        self.anchorSuspended = suspended
        // One nanosecond more covers truncating the correction, one more the shift to a whole
        // nanosecond and one more rounding the suspended part up.
        let roundingAllowance: Int64 =
            (subNanosecond == 0 ? 0 : 1) + (aging.frequencyError == 0 ? 0 : 1)
            + (held.base.suspended.attoseconds % 1_000_000_000 == 0 ? 0 : 1)
        self.boundNanoseconds = anchor.errorBound.nanosecondsRoundedUp + roundingAllowance
        self.frequencyError = aging.frequencyError
        self.halfWidth = aging.halfWidth
        self.halfWanderRate = aging.wanderRate / 2e9
        self.rateLimit = max(aging.rateLimit, aging.halfWidth)
        let knee = HoldoverAging.knee(
            halfWidth: aging.halfWidth, wanderRate: aging.wanderRate / 1e9, rateLimit: rateLimit)
        self.knee = knee
        self.suspendedNanoseconds = since
        self.suspendTolerance = aging.suspendTolerance
        self.suspendResolutionNanoseconds = aging.suspendResolution.nanosecondsRoundedUp
        self.baseGrowth = 0
        self.epoch = check.epoch
        self.source = anchor.source
        self.serverIdentifier = ServerNames.identifier(for: anchor.server)
        self.isDriftCorrected = aging.isMeasured
        self.isAuthenticated = anchor.isAuthenticated
        self.baseGrowth = suspendGrowth(since)
    }

    /// `H(x₀ + width) − H(x₀)` in ns.
    @inline(__always)
    func increase(from x0: Double, by width: Double) -> Double {
        HoldoverAging.increase(
            from: x0, by: width, halfWidth: halfWidth, halfWanderRate: halfWanderRate, knee: knee,
            rateLimit: rateLimit)
    }

    /// `σ·S + q` for `S` ns suspended (0 for none).
    func suspendGrowth(_ suspended: Int64) -> Double {
        guard suspended > 0 else { return 0 }
        return Double(suspended) * suspendTolerance + Double(suspendResolutionNanoseconds)
    }

    /// The estimate at awake reading `awake` (ns) while the suspend epoch is ``epoch``;
    /// allocation-free.
    @inline(__always)
    func estimate(awakeNanoseconds awake: Int64) -> TimeEstimate {
        let elapsed = awake &- anchorAwake
        let elapsedDouble = Double(elapsed)
        // |elapsed| < 2^63 ns, the correction is at most 1e-3 and the growth rate at most 1e-3 plus
        // the wander limit, so these stay inside Int64. Conversions truncate (one instruction;
        // `rounded` calls into libm on baseline x86-64): the correction is then off by under 1 ns,
        // which the published bound already includes, and the growth is rounded up by hand so the
        // bound stays sound.
        let correction = Int64(elapsedDouble * frequencyError)
        let exactGrowth =
            increase(from: Double(suspendedNanoseconds), by: elapsedDouble.magnitude) + baseGrowth
        var growth = Int64(exactGrowth)
        if Double(growth) < exactGrowth { growth &+= 1 }
        let trueElapsed = elapsed &- correction
        return TimeEstimate(
            time: UnixTime(
                sinceEpoch: Duration(attoseconds: trueAttoseconds &+ Int128(trueElapsed) &* 1_000_000_000)),
            errorBound: Duration(attoseconds: Int128(boundNanoseconds &+ growth) &* 1_000_000_000),
            age: Duration(attoseconds: Int128(elapsed &+ suspendedNanoseconds) &* 1_000_000_000),
            source: source,
            serverIdentifier: serverIdentifier,
            isDriftCorrected: isDriftCorrected, isAuthenticated: isAuthenticated)
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
        var exactGrowth = increase(from: s, by: elapsedDouble.magnitude)
        if since != 0 { exactGrowth += s * suspendTolerance + Double(suspendResolutionNanoseconds) }
        exactGrowth += Double(max(0, uncertainty))
        var growth = Int64(exactGrowth)
        if Double(growth) < exactGrowth { growth &+= 1 }
        let correction = Int64(elapsedDouble * frequencyError)
        // trueAttoseconds already includes the suspended time as of the epoch.
        let trueElapsed = elapsed &- correction &+ (since &- suspendedNanoseconds)
        return TimeEstimate(
            time: UnixTime(
                sinceEpoch: Duration(attoseconds: trueAttoseconds &+ Int128(trueElapsed) &* 1_000_000_000)),
            errorBound: Duration(attoseconds: Int128(boundNanoseconds &+ growth) &* 1_000_000_000),
            age: Duration(attoseconds: Int128(elapsed &+ since) &* 1_000_000_000),
            source: source,
            serverIdentifier: serverIdentifier,
            isDriftCorrected: isDriftCorrected, isAuthenticated: isAuthenticated)
    }
}
