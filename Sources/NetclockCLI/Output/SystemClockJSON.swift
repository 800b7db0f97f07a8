import NetworkClock

/// The `system_clock` object of `now --json`: the kernel's own view of the system clock, from its
/// time discipline (`adjtimex`, read-only), as the local time daemon left it.
struct SystemClockJSON: Encodable {
    /// Whether the kernel considers the clock synchronised (no `STA_UNSYNC`, no `TIME_ERROR`).
    var synchronized: Bool
    /// The maximum error the daemon declared, grown by the kernel since, in seconds.
    var maximumError: Double
    /// The estimated error the daemon declared, in seconds.
    var estimatedError: Double
    /// The phase the kernel still has to slew (PLL offset plus any `adjtime` remainder), in seconds.
    var offsetToSlew: Double
    /// The frequency correction applied, in ppm.
    var frequencyPPM: Double
    /// The clock's advance per timer tick, in seconds (nominally 0.01).
    var tick: Double
    /// The clock state: `ok`, `insert_leap`, `delete_leap`, `leap_in_progress`, `leap_occurred`
    /// or `error`.
    var state: String
    /// The names of the set `STA_*` flags, e.g. `["pll", "nano"]` or `["unsync"]`.
    var status: [String]

    enum CodingKeys: String, CodingKey {
        case synchronized, tick, state, status
        case maximumError = "maximum_error"
        case estimatedError = "estimated_error"
        case offsetToSlew = "offset_to_slew"
        case frequencyPPM = "frequency_ppm"
    }

    /// The object for `state`.
    init(_ state: KernelClockState) {
        synchronized = state.isSynchronized
        maximumError = state.maximumError.secondsDouble
        estimatedError = state.estimatedError.secondsDouble
        offsetToSlew = (state.offset + state.singleShotOffset).secondsDouble
        frequencyPPM = state.frequencyPPM
        tick = state.tick.secondsDouble
        self.state = state.clockStateName
        status = state.status.names
    }
}
