/// The hot path's arithmetic: integers only, and as short a chain of dependent instructions after
/// the clock reading as it can be. `now()` runs between two reads of the raw oscillator, whose vDSO
/// read waits for every earlier instruction to finish (`lfence; rdtsc`), so its cost is the latency
/// of this chain more than its instruction count (Benchmarks.md, "now()").
extension PublishedAnchor {
    /// The fast estimate `elapsed` awake nanoseconds after the anchor, from the published fields
    /// (see ``AnchorCell``'s hot path). The caller checks that `elapsed` lies in `0..<fastSpan`
    /// (so it is not negative, and the leap is out of reach) first.
    @inline(__always)
    static func estimate(
        elapsed: Int64, fastTrueAttoseconds: Int128, fastBound: Int64, suspendedNanoseconds: Int64,
        frequencyFixed: Int64, linearFixed: UInt64, wanderFixed: UInt64, kneeAwake: Int64, kneeGrowth: Int64,
        rateFixed: UInt64, metadata: UInt64, leapReported: Int64
    ) -> TimeEstimate {
        // 0 ≤ elapsed ≤ 2⁶² ns (146 years): the correction and growth stay inside 64 bits. The
        // correction is a fixed-point product, within the 2 ns the published bound already includes.
        // The growth is rounded up: the high word of the elapsed time times a rate in units of 2⁻⁶⁴
        // rounded up (no shift after the product), plus 1 ns for that floor (added to the bound
        // beside the product, not after it).
        let correction = Self.correction(elapsed, frequencyFixed)
        let a = UInt64(bitPattern: elapsed)
        let growth: UInt64
        if elapsed >= kneeAwake {
            growth = UInt64(bitPattern: kneeGrowth &+ Self.correction(elapsed &- kneeAwake, rateFixed))
        } else {
            // a·(linear + half wander rate·a): the rate at the middle of the span in units of 2⁻⁶⁴
            // (floored; ``linearFixed`` holds one unit more for that), times a. Below the knee the
            // rate is under the ceiling, under ½, so the sum stays under 2⁶⁴
            // (``setFastPathFixedPoint(rateLimit:)``); a < 2⁴⁸ where ``wanderFixed`` is not 0
            // (``quadraticSpan``), so the shift loses nothing.
            let wander = wanderFixed.multipliedFullWidth(by: a &<< 16).high
            growth = a.multipliedFullWidth(by: linearFixed &+ wander).high
        }
        let roundUp: Int64 = elapsed == 0 ? 0 : 1
        return TimeEstimate(
            timeAttoseconds: fastTrueAttoseconds &+ Int128(elapsed &- correction) &* 1_000_000_000,
            boundNanoseconds: (fastBound &+ roundUp) &+ Int64(bitPattern: growth),
            ageNanoseconds: elapsed &+ suspendedNanoseconds, metadata: metadata, leapSeconds: leapReported)
    }

    /// Sets ``linearFixed`` and ``wanderFixed`` from ``linearGrowth`` and ``halfWanderRate``. Where
    /// they do not fit the fixed-point forms (rates of ½ and more: no real oscillator; the fast
    /// path then never holds, ``fastLimit(leapFrom:)``), the quadratic branch is given up for the
    /// linear one at the rate ceiling from the anchor on (``kneeAwake`` 0): a looser bound, never a
    /// tighter one. With rates under ½, `linear + wander·a` stays under 2⁶⁴ below the knee, where the
    /// rate is under the ceiling.
    mutating func setFastPathFixedPoint(rateLimit: Double) {
        let wander = halfWanderRate * 0x1p112
        guard kneeAwake != 0, linearGrowth < 0.5, rateLimit < 0.5, wander.isFinite, wander >= 0,
            wander < 0x1p63
        else {
            kneeAwake = 0
            kneeGrowth = 0
            return
        }
        linearFixed = Self.fixedRoundingUp(linearGrowth) + 1
        wanderFixed = UInt64(wander.rounded(.up))
    }

    /// The most awake nanoseconds after the anchor at which `time + bound` of a fast estimate stays
    /// below Unix second `leapFrom` (2⁶² ns, 146 years, when it never reaches it; `Int64.min` when it
    /// may already, or when the growth rate is ½ and more, which the fixed-point forms do not hold).
    /// Over `e ≥ 0` ns the time grows by at most `e·(1 + |f|) + 2` ns and the bound by at most
    /// `e·r + 3` ns (`f` the frequency correction; `r` the fastest growth rate, ``rateFixed`` plus
    /// three units: two of ``linearFixed``'s roundings, one of ``wanderFixed``'s over 2⁴⁸ ns),
    /// so the limit is the distance left, less 8 ns, over `1 + |f| + r`. Readings before the anchor
    /// (`e < 0`) are outside the span: they take the slow path.
    func fastLimit(leapFrom: Int64) -> Int64 {
        guard rateLimit < 0.5 else { return .min }
        guard leapFrom != .max else { return 1 << 62 }
        let frequency = Double(frequencyFixed.magnitude) * 0x1p-62 + 0x1p-60
        let rate = (Double(rateFixed) + 3) * 0x1p-64
        guard frequency + rate < 1 else { return .min }
        let leapNanoseconds = Int128(leapFrom) &* 1_000_000_000
        let timeNanoseconds = (fastTrueAttoseconds + 999_999_999) / 1_000_000_000
        let distance = leapNanoseconds - timeNanoseconds - Int128(fastBound) - 8
        guard distance > 0 else { return .min }
        let limit = (Double(distance) * (1 - 0x1p-40) / (1 + frequency + rate)).rounded(.down)
        return limit >= 0x1p62 ? 1 << 62 : Int64(limit)
    }
}
