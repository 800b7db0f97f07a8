extension TrueTimeInterval {
    /// The interval as one time and a bound, the one rounding every result and anchor takes: the
    /// midpoint rounded down to a whole nanosecond (exact in the anchor file), and the bound around
    /// it up to the farther end, rounded up to a whole nanosecond, so the bound never shrinks the
    /// interval.
    package var pointEstimate: (time: UnixTime, bound: Duration) {
        let time = UnixTime(sinceEpoch: midpoint.sinceEpoch.flooredToNanosecond)
        return (time, max(latest - time, time - earliest).ceiledToNanosecond)
    }

    /// Whether `other` has the same ends (whatever its instant).
    package func hasEnds(of other: TrueTimeInterval) -> Bool {
        earliest == other.earliest && latest == other.latest
    }
}

extension Duration {
    /// Rounded toward negative infinity to a whole nanosecond.
    package var flooredToNanosecond: Duration {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Duration(attoseconds: (remainder < 0 ? quotient - 1 : quotient) * 1_000_000_000)
    }

    /// Rounded toward positive infinity to a whole nanosecond.
    package var ceiledToNanosecond: Duration {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Duration(attoseconds: (remainder > 0 ? quotient + 1 : quotient) * 1_000_000_000)
    }
}
