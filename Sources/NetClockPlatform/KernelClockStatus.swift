/// The kernel time discipline's status word (`timex.status`): an open set of flags, so bits this
/// code does not know are kept rather than dropped.
///
/// The values are Linux's `STA_*` constants (`<sys/timex.h>`), which Darwin shares.
package struct KernelClockStatus: OptionSet, Sendable, Hashable {
    /// The raw `timex.status` bits.
    package let rawValue: Int32

    /// Wraps raw `timex.status` bits.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `STA_PLL`: the phase-locked loop disciplines the clock.
    package static let pll = KernelClockStatus(rawValue: 0x0001)
    /// `STA_PPSFREQ`: a PPS signal disciplines the frequency.
    package static let ppsFrequency = KernelClockStatus(rawValue: 0x0002)
    /// `STA_PPSTIME`: a PPS signal disciplines the time.
    package static let ppsTime = KernelClockStatus(rawValue: 0x0004)
    /// `STA_FLL`: frequency-lock mode is selected.
    package static let fll = KernelClockStatus(rawValue: 0x0008)
    /// `STA_INS`: a leap second will be inserted at the end of the UTC day.
    package static let insertLeap = KernelClockStatus(rawValue: 0x0010)
    /// `STA_DEL`: a leap second will be deleted at the end of the UTC day.
    package static let deleteLeap = KernelClockStatus(rawValue: 0x0020)
    /// `STA_UNSYNC`: the clock is not synchronised (set at boot and when `maxerror` passes 16 s).
    package static let unsynchronized = KernelClockStatus(rawValue: 0x0040)
    /// `STA_FREQHOLD`: the frequency is held.
    package static let frequencyHold = KernelClockStatus(rawValue: 0x0080)
    /// `STA_PPSSIGNAL`: a PPS signal is present.
    package static let ppsSignal = KernelClockStatus(rawValue: 0x0100)
    /// `STA_PPSJITTER`: the PPS signal's jitter was exceeded.
    package static let ppsJitter = KernelClockStatus(rawValue: 0x0200)
    /// `STA_PPSWANDER`: the PPS signal's wander was exceeded.
    package static let ppsWander = KernelClockStatus(rawValue: 0x0400)
    /// `STA_PPSERROR`: PPS calibration failed.
    package static let ppsError = KernelClockStatus(rawValue: 0x0800)
    /// `STA_CLOCKERR`: the clock hardware reported a fault.
    package static let clockError = KernelClockStatus(rawValue: 0x1000)
    /// `STA_NANO`: `offset` is in nanoseconds (else microseconds).
    package static let nanosecondResolution = KernelClockStatus(rawValue: 0x2000)
    /// `STA_MODE`: the loop runs in FLL mode (else PLL).
    package static let fllMode = KernelClockStatus(rawValue: 0x4000)
    /// `STA_CLK`: clock source B is selected (else A).
    package static let clockSourceB = KernelClockStatus(rawValue: 0x8000)

    /// Every known flag with its stable snake_case name, in bit order.
    package static let named: [(flag: KernelClockStatus, name: String)] = [
        (.pll, "pll"), (.ppsFrequency, "pps_freq"), (.ppsTime, "pps_time"), (.fll, "fll"),
        (.insertLeap, "insert_leap"), (.deleteLeap, "delete_leap"), (.unsynchronized, "unsync"),
        (.frequencyHold, "freq_hold"), (.ppsSignal, "pps_signal"), (.ppsJitter, "pps_jitter"),
        (.ppsWander, "pps_wander"), (.ppsError, "pps_error"), (.clockError, "clock_error"),
        (.nanosecondResolution, "nano"), (.fllMode, "mode_fll"), (.clockSourceB, "clk_b"),
    ]

    /// The names of the flags that are set, in bit order (unknown bits are not named).
    package var names: [String] {
        Self.named.filter { contains($0.flag) }.map(\.name)
    }
}
