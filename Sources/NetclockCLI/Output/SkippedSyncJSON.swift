import NetworkClock

/// The `--json` object of a `sync` or `set` that `--max-bound` skipped: nothing was sent, because
/// the stored anchor's bound aged to now is within it. `skipped` is true, the time is the stored
/// anchor's, and `set` adds its `set` object.
struct SkippedSyncJSON: Encodable {
    /// Always true.
    var skipped = true
    /// The trusted time, ISO 8601 UTC with microseconds.
    var time: String
    /// The same, seconds since 1970.
    var unix: Double
    /// Trusted time − the system clock, seconds.
    var offset: Double
    /// The bound of `offset`, seconds.
    var errorBound: Double
    /// Whether the stored anchor is authenticated.
    var authenticated: Bool
    /// The anchor file.
    var state: String
    /// `set` only: what was done to the system clock (absent otherwise).
    var set: SetJSON?

    enum CodingKeys: String, CodingKey {
        case skipped, time, unix, offset, authenticated, state, set
        case errorBound = "error_bound"
    }

    /// The object for `comparison`, the stored anchor against the system clock.
    init(_ comparison: NetworkClock.SystemClockOffset, state: String) {
        time = ISO8601.format(comparison.trustedTime.time, fractionDigits: 6)
        unix = comparison.trustedTime.time.secondsDouble
        offset = comparison.offset.secondsDouble
        errorBound = comparison.errorBound.secondsDouble
        authenticated = comparison.isAuthenticated
        self.state = state
    }
}
