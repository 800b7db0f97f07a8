import SNTP

/// The anchor and rate parameters in the form ``AnchoredClock/now()`` computes with: plain
/// integers and doubles, no references, so that it can be published through atomics.
struct PublishedAnchor: Sendable, Equatable {
    /// The true time at the anchor instant, in attoseconds since the Unix epoch, shifted along the
    /// clock's line so that the anchor's monotonic instant is a whole nanosecond.
    var trueAttoseconds: Int128
    /// The monotonic instant of the anchor, in whole nanoseconds.
    var monotonicNanoseconds: Int64
    /// The error bound at the anchor instant, rounded up to whole nanoseconds.
    var boundNanoseconds: Int64
    /// The monotonic clock's frequency error as a fraction (0 until drift is known).
    var frequencyError: Double
    /// The rate at which the bound grows, as a fraction.
    var boundGrowthRate: Double
    /// The source of the anchor.
    var source: TimeSource
    /// The interned server name (see ``ServerNames``).
    var serverIdentifier: UInt32
    /// Whether `frequencyError` and `boundGrowthRate` come from a drift estimate.
    var isDriftCorrected: Bool
    /// Whether the anchor's time was authenticated (NTS).
    var isAuthenticated: Bool

    /// Converts an anchor and the rate parameters; the anchor must be within its supported range.
    init(anchor: Anchor, frequencyError: Double, boundGrowthRate: Double, isDriftCorrected: Bool) {
        let monotonic = anchor.monotonic.sinceOrigin.attoseconds
        let (nanoseconds, subNanosecond) = monotonic.quotientAndRemainder(dividingBy: 1_000_000_000)
        // Moving the anchor back by the sub-nanosecond part along the line keeps it exact to within
        // subNanosecond × frequency error, under 10⁻¹² s.
        self.trueAttoseconds = anchor.trueTime.sinceEpoch.attoseconds - subNanosecond
        self.monotonicNanoseconds = Int64(truncatingIfNeeded: nanoseconds)
        // One nanosecond more covers truncating the drift correction in `estimate(at…)` when a
        // drift is applied, and shifting the anchor to a whole nanosecond.
        let roundingAllowance: Int64 = (subNanosecond == 0 ? 0 : 1) + (frequencyError == 0 ? 0 : 1)
        self.boundNanoseconds = anchor.errorBound.nanosecondsRoundedUp + roundingAllowance
        self.frequencyError = frequencyError
        self.boundGrowthRate = boundGrowthRate
        self.source = anchor.source
        self.serverIdentifier = ServerNames.identifier(for: anchor.server)
        self.isDriftCorrected = isDriftCorrected
        self.isAuthenticated = anchor.isAuthenticated
    }

    /// Creates the published form from its parts.
    init(
        trueAttoseconds: Int128, monotonicNanoseconds: Int64, boundNanoseconds: Int64,
        frequencyError: Double, boundGrowthRate: Double, source: TimeSource, serverIdentifier: UInt32,
        isDriftCorrected: Bool, isAuthenticated: Bool
    ) {
        self.trueAttoseconds = trueAttoseconds
        self.monotonicNanoseconds = monotonicNanoseconds
        self.boundNanoseconds = boundNanoseconds
        self.frequencyError = frequencyError
        self.boundGrowthRate = boundGrowthRate
        self.source = source
        self.serverIdentifier = serverIdentifier
        self.isDriftCorrected = isDriftCorrected
        self.isAuthenticated = isAuthenticated
    }

    /// The estimate at monotonic instant `nanoseconds`; allocation-free.
    @inline(__always)
    func estimate(atMonotonicNanoseconds nanoseconds: Int64) -> TimeEstimate {
        let elapsed = nanoseconds &- monotonicNanoseconds
        let elapsedDouble = Double(elapsed)
        // |elapsed| < 2^63 ns, the correction is at most 1e-3 and the growth rate at most about 0.1
        // (the kernel's slew limit plus a tick 10 % off nominal), so these stay inside Int64.
        // Conversions truncate (one instruction; `rounded` calls into libm on baseline x86-64):
        // the correction is then off by under 1 ns, which the published bound already includes,
        // and the growth is rounded up by hand so the bound stays sound.
        let correction = Int64(elapsedDouble * frequencyError)
        let exactGrowth = elapsedDouble.magnitude * boundGrowthRate
        var growth = Int64(exactGrowth)
        if Double(growth) < exactGrowth { growth &+= 1 }
        let trueElapsed = elapsed &- correction
        return TimeEstimate(
            time: UnixTime(
                sinceEpoch: Duration(attoseconds: trueAttoseconds &+ Int128(trueElapsed) &* 1_000_000_000)),
            errorBound: Duration(attoseconds: Int128(boundNanoseconds &+ growth) &* 1_000_000_000),
            age: Duration(attoseconds: Int128(elapsed) &* 1_000_000_000),
            source: source,
            serverIdentifier: serverIdentifier,
            isDriftCorrected: isDriftCorrected, isAuthenticated: isAuthenticated)
    }
}
