import TimeValues

// The time values SNTP's API speaks in, defined once in TimeBase (which every protocol builds on)
// and named here so that `import SNTP` is all a client needs.

/// An instant on the true-time (UTC) line: a duration since 1970-01-01T00:00:00Z. See
/// `TimeValues.UnixTime`.
public typealias UnixTime = TimeValues.UnixTime

/// An instant on the boot-time clock, which users cannot set and which counts through suspend.
/// See `TimeValues.MonotonicInstant`.
public typealias MonotonicInstant = TimeValues.MonotonicInstant
