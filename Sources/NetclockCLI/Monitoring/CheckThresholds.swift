/// What `netclock check` judges a measured offset against: `-w`, `-c` and `--max-bound`.
///
/// The ranges apply to the offset's magnitude in seconds, as `check_ntp_time`'s do; their defaults
/// are `check_ntp_time`'s too (warning beyond 60 s, critical beyond 120 s).
package struct CheckThresholds: Hashable, Sendable {
    /// `-w RANGE`.
    package var warning: ThresholdRange
    /// `-c RANGE`.
    package var critical: ThresholdRange
    /// `--max-bound SEC`: a wider error bound leaves the verdict unknown; nil: any bound is judged.
    package var maxBound: Double?

    /// The default warning range, `60` (as `check_ntp_time`).
    package static let defaultWarning = ThresholdRange(
        start: 0, end: 60, alertsInside: false, description: "60")
    /// The default critical range, `120` (as `check_ntp_time`).
    package static let defaultCritical = ThresholdRange(
        start: 0, end: 120, alertsInside: false, description: "120")

    /// Creates thresholds; the defaults are `check_ntp_time`'s.
    package init(
        warning: ThresholdRange = Self.defaultWarning, critical: ThresholdRange = Self.defaultCritical,
        maxBound: Double? = nil
    ) {
        self.warning = warning
        self.critical = critical
        self.maxBound = maxBound
    }
}
