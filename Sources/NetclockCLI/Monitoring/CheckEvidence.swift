/// What `netclock check` knows about the system clock: the offset from trusted time, the bound
/// within which the true offset lies, and how far the time can be trusted.
package struct CheckEvidence: Hashable, Sendable {
    /// True time minus the system clock, seconds (positive: the system clock is behind).
    package var offset: Double
    /// The error bound of `offset`, seconds: the true offset lies in `offset ± errorBound`.
    package var errorBound: Double
    /// Whether the time is authenticated (NTS, Roughtime).
    package var isAuthenticated: Bool
    /// Whether authenticated sources were configured but only unauthenticated ones answered.
    package var isDowngraded: Bool

    /// Creates evidence.
    package init(offset: Double, errorBound: Double, isAuthenticated: Bool, isDowngraded: Bool = false) {
        self.offset = offset
        self.errorBound = errorBound
        self.isAuthenticated = isAuthenticated
        self.isDowngraded = isDowngraded
    }

    /// Where the offset's magnitude can lie: `|offset ± errorBound|`, from 0 when the interval
    /// straddles zero.
    package var magnitude: ClosedRange<Double> {
        let lower = offset - errorBound
        let upper = offset + errorBound
        if lower > 0 { return lower...upper }
        if upper < 0 { return -upper...(-lower) }
        return 0...max(-lower, upper)
    }
}
