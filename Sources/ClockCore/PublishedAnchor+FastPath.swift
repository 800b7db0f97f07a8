/// The hot path's arithmetic: integers only, and as short a chain of dependent instructions after
/// the clock reading as it can be. `now()` runs between two reads of the raw oscillator, whose vDSO
/// read waits for every earlier instruction to finish (`lfence; rdtsc`), so its cost is the latency
/// of this chain more than its instruction count (Benchmarks.md, "now()").
extension PublishedAnchor {
    /// The fast estimate from the published fields (see ``AnchorCell``'s hot path). The caller
    /// checks the leap with ``fastLimit`` first.
    @inline(__always)
    static func estimate(
        awake: Int64, fastTrueAttoseconds: Int128, anchorAwake: Int64, fastBound: Int64,
        suspendedNanoseconds: Int64, frequencyFixed: Int64, linearFixed: Int64, wanderFixed: Int64,
        kneeAwake: Int64, kneeGrowth: Int64, rateFixed: Int64, metadata: UInt64, leapReported: Int64
    ) -> TimeEstimate {
        let elapsed = awake &- anchorAwake
        // |elapsed| < 2^62 ns in practice (146 years); the correction and growth stay inside Int64.
        // The correction is a fixed-point product, within the 2 ns the published bound already
        // includes. The growth is rounded up: a fixed-point product of rates rounded up, floored,
        // plus 1 ns.
        let correction = Self.correction(elapsed, frequencyFixed)
        let a = elapsed < 0 ? 0 &- elapsed : elapsed
        let roundUp: Int64 = a == 0 ? 0 : 1
        let growth: Int64
        if a >= kneeAwake {
            growth = kneeGrowth &+ Self.correction(a &- kneeAwake, rateFixed) &+ roundUp
        } else {
            // a·(linear + half wander rate·a): the rate at the middle of the span, rounded up (one
            // unit of 2⁻⁶² for the floor of the wander part), times a.
            let (high, low) = wanderFixed.multipliedFullWidth(by: a)
            let wander = (high &<< 32) | Int64(truncatingIfNeeded: low &>> 32)
            growth = Self.correction(a, linearFixed &+ wander &+ 1) &+ roundUp
        }
        let trueElapsed = elapsed &- correction
        return TimeEstimate(
            timeAttoseconds: fastTrueAttoseconds &+ Int128(trueElapsed) &* 1_000_000_000,
            boundNanoseconds: fastBound &+ growth, ageNanoseconds: elapsed &+ suspendedNanoseconds,
            metadata: metadata, leapSeconds: leapReported)
    }

    /// Sets ``linearFixed`` and ``wanderFixed`` from ``linearGrowth`` and ``halfWanderRate``. Where
    /// they do not fit the fixed-point forms (rates of 1 and more: no real oscillator), the
    /// quadratic branch is given up for the linear one at the rate ceiling from the anchor on
    /// (``kneeAwake`` 0): a looser bound, never a tighter one.
    mutating func setFastPathFixedPoint(rateLimit: Double) {
        let wander = halfWanderRate * 0x1p94
        guard kneeAwake != 0, linearGrowth < 1, rateLimit < 1, wander.isFinite, wander >= 0, wander < 0x1p62
        else {
            kneeAwake = 0
            kneeGrowth = 0
            return
        }
        linearFixed = Self.fixedRoundingUp(linearGrowth)
        wanderFixed = Int64(wander.rounded(.up))
    }

    /// The most awake nanoseconds after the anchor at which `time + bound` of a fast estimate stays
    /// below Unix second `leapFrom` (`Int64.max` when it never reaches it, `Int64.min` when it may
    /// already). Over `e ≥ 0` ns the time grows by at most `e·(1 + |f|) + 2` ns and the bound by at
    /// most `e·r + 3` ns (`f` the frequency correction, `r` the fastest growth rate, roundings
    /// included), so the limit is the distance left, less 8 ns, over `1 + |f| + r`. Before the
    /// anchor (`e < 0`) `time + bound` grows by at most 5 ns while `|f| + r ≤ 1`, within the 8 ns.
    func fastLimit(leapFrom: Int64) -> Int64 {
        guard leapFrom != .max else { return .max }
        let frequency = Double(frequencyFixed.magnitude) * 0x1p-62 + 0x1p-60
        let rate = max(Double(rateFixed), Double(linearFixed) + 2) * 0x1p-62
        guard frequency + rate < 1 else { return .min }
        let leapNanoseconds = Int128(leapFrom) &* 1_000_000_000
        let timeNanoseconds = (fastTrueAttoseconds + 999_999_999) / 1_000_000_000
        let distance = leapNanoseconds - timeNanoseconds - Int128(fastBound) - 8
        guard distance > 0 else { return .min }
        let limit = (Double(distance) * (1 - 0x1p-40) / (1 + frequency + rate)).rounded(.down)
        return limit >= 0x1p62 ? 1 << 62 : Int64(limit)
    }
}
