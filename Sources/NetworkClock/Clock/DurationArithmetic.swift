extension Duration {
    /// The duration in seconds as a `Double`, for statistics and display only.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// Whole nanoseconds, truncated toward zero; wraps (never traps) outside the `Int64` range, so
    /// callers validate the range first when it matters.
    @inline(__always)
    var truncatedNanoseconds: Int64 {
        Int64(truncatingIfNeeded: attoseconds / 1_000_000_000)
    }

    /// Whole nanoseconds, rounded toward positive infinity; wraps outside the `Int64` range.
    var nanosecondsRoundedUp: Int64 {
        let atto = attoseconds
        let (quotient, remainder) = atto.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Int64(truncatingIfNeeded: remainder > 0 ? quotient + 1 : quotient)
    }

    /// The magnitude of the duration.
    var magnitude: Duration { self < .zero ? .zero - self : self }
}
