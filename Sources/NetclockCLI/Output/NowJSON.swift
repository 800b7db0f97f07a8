import NetworkClock

/// The `now --json` object: the trusted time from the stored anchor.
struct NowJSON: Encodable {
    var time: String
    var unix: Double
    /// The bound on `time` and on `offset`: the trusted time's bound plus the uncertainty of the
    /// system-clock reading it was compared with.
    var errorBound: Double
    /// Seconds since the sync.
    var age: Double
    /// `ntp`, `http` or `restored`.
    var source: String
    var server: Nullable<String>
    /// True time − local wall clock.
    var offset: Double
    var driftCorrected: Bool
    /// Whether the anchor's time is authenticated (NTS).
    var authenticated: Bool
    /// The kernel's view of the system clock; `null` where it cannot be read (not Linux).
    var systemClock: Nullable<SystemClockJSON>
    /// What the clock knows about its oscillator's frequency.
    var frequency: Nullable<FrequencyJSON>
    var leap: LeapJSON

    enum CodingKeys: String, CodingKey {
        case time, unix, age, source, server, offset, authenticated, frequency, leap
        case errorBound = "error_bound"
        case driftCorrected = "drift_corrected"
        case systemClock = "system_clock"
    }

    /// The object for the clock's trusted time against one reading of the system clock
    /// (`comparison`), with the kernel's time-discipline state `systemClock` (nil when unknown) and
    /// the clock's `frequency`.
    init(
        _ comparison: NetworkClock.SystemClockOffset, systemClock: KernelClockState?,
        frequency: FrequencyEstimate? = nil
    ) {
        let estimate = comparison.trustedTime
        time = ISO8601.format(estimate.time, fractionDigits: 6)
        unix = estimate.time.secondsDouble
        // One bound for both the time and the offset: the time's, plus the reading's own
        // uncertainty (half the gap between the monotonic reads around the wall-clock read).
        errorBound = comparison.errorBound.secondsDouble
        age = estimate.age.secondsDouble
        source = estimate.source.rawValue
        server = Nullable(estimate.server)
        offset = comparison.offset.secondsDouble
        driftCorrected = estimate.isDriftCorrected
        authenticated = estimate.isAuthenticated
        self.systemClock = Nullable(systemClock.map(SystemClockJSON.init))
        self.frequency = Nullable(frequency.map(FrequencyJSON.init))
        leap = LeapJSON(estimate.leap)
    }
}
