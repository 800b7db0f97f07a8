import NetClockPlatform

/// What the kernel's time discipline means for an anchored clock: how far an instant of the
/// exchange clock (`CLOCK_BOOTTIME`) can be from where the time base puts it.
///
/// The clock extrapolates on the raw oscillator (`CLOCK_MONOTONIC_RAW`), which the discipline never
/// touches, so the kernel's state no longer changes how fast the bound grows. It matters only
/// where an anchor's exchange-clock instant is carried onto the time base over the distance `d`
/// between the anchor and the paired reading taken when it is offered (the rest of the sync, a few
/// milliseconds to seconds). Over `d` the boot-time clock runs at the raw rate times
/// `1 + freq + (tick − nominal)/nominal`, plus what the PLL or `adjtime` slews (`adjtimex(2)`,
/// Linux `kernel/time/ntp.c`); a daemon may change `freq` within ±500 ppm (`MAXFREQ`) at any
/// moment. So the mapping is charged `d × (|freq| + 500 ppm + tick offset)` (``mappingRate``), and
/// when the kernel still has a phase to slew, that phase too (``boundWidening``): it may have been
/// slewed during `d`.
package struct KernelDiscipline: Sendable, Hashable {
    /// The most a time daemon can move the kernel's frequency, and the rate of an `adjtime` slew:
    /// 500 ppm (`MAXFREQ`).
    package static let slewLimit = 500e-6

    /// The state read at the last update; `nil` when unknown.
    package var state: KernelClockState?

    /// Wraps a reading.
    package init(_ state: KernelClockState?) {
        self.state = state
    }

    /// The phase adjustment the kernel still has to apply (zero when unknown): charged to an
    /// anchor whose instant is mapped across a distance, since part of it may have been slewed
    /// meanwhile.
    package var boundWidening: Duration {
        state?.remainingSlew ?? .zero
    }

    /// How fast the exchange clock may run against the raw oscillator, as a fraction: the
    /// frequency the kernel applies, plus the 500 ppm a daemon could change it by (or an `adjtime`
    /// slew adds), plus however far `tick` is from nominal. 500 ppm when the state is unknown.
    package var mappingRate: Double {
        guard let state else { return Self.slewLimit }
        return min(0.2, abs(state.frequencyPPM) * 1e-6 + Self.slewLimit + state.tickRateOffset)
    }
}
