import TimeValues

extension Duration {

    /// Whole nanoseconds, truncated toward zero; wraps (never traps) outside the `Int64` range, so
    /// callers validate the range first when it matters.
    @inline(__always)
    var truncatedNanoseconds: Int64 {
        Int64(truncatingIfNeeded: attoseconds / 1_000_000_000)
    }

    /// Whole nanoseconds, rounded toward positive infinity; wraps outside the `Int64` range.
    package var nanosecondsRoundedUp: Int64 {
        let atto = attoseconds
        let (quotient, remainder) = atto.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Int64(truncatingIfNeeded: remainder > 0 ? quotient + 1 : quotient)
    }

}
