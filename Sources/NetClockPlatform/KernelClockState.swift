import TimeValues

/// The kernel's time discipline as `adjtimex(2)` reports it (read-only, `modes = 0`): whether a
/// time daemon keeps the clock synchronised, how much it still has to slew, and the errors the
/// daemon last declared.
///
/// `CLOCK_BOOTTIME` and `CLOCK_MONOTONIC` run at the rate this discipline sets (only steps of the
/// wall clock leave them alone), so this is what an anchored clock needs to know to age its bound
/// honestly. Read it with ``Syscalls/kernelClockState()``.
package struct KernelClockState: Sendable, Hashable {
    /// `adjtimex`'s return value, the clock state: `TIME_OK` (0), `TIME_INS` (1), `TIME_DEL` (2),
    /// `TIME_OOP` (3), `TIME_WAIT` (4) or `TIME_ERROR` (5, not synchronised).
    package var clockState: Int32
    /// `timex.status`.
    package var status: KernelClockStatus
    /// `timex.offset`: the phase offset the kernel PLL still has to slew out (the sign is the
    /// direction the clock will move: positive means the clock will be advanced).
    package var offset: Duration
    /// What remains of an `adjtime(3)` (`ADJ_OFFSET_SINGLESHOT`) slew, read with
    /// `ADJ_OFFSET_SS_READ`; the kernel slews it at 500 µs per second.
    package var singleShotOffset: Duration
    /// `timex.freq`: the frequency correction applied to the clock, in ppm (the kernel keeps it in
    /// ppm × 2¹⁶ and clamps it to ±500 ppm).
    package var frequencyPPM: Double
    /// `timex.maxerror`: the maximum error the time daemon declared, grown by the kernel at 500 ppm
    /// since (the kernel sets `STA_UNSYNC` once it passes 16 s).
    package var maximumError: Duration
    /// `timex.esterror`: the estimated error the time daemon declared.
    package var estimatedError: Duration
    /// `timex.tick`: the clock's advance per timer tick. Away from ``nominalTick`` it changes the
    /// clock's rate by up to ±10 % beyond `freq` (chrony slews fast this way).
    package var tick: Duration
    /// The tick at which the clock runs at its nominal rate: one second over `USER_HZ`.
    package var nominalTick: Duration

    /// Creates a state from its parts.
    package init(
        clockState: Int32, status: KernelClockStatus, offset: Duration, singleShotOffset: Duration = .zero,
        frequencyPPM: Double, maximumError: Duration, estimatedError: Duration,
        tick: Duration = .microseconds(10_000), nominalTick: Duration = .microseconds(10_000)
    ) {
        self.clockState = clockState
        self.status = status
        self.offset = offset
        self.singleShotOffset = singleShotOffset
        self.frequencyPPM = frequencyPPM
        self.maximumError = maximumError
        self.estimatedError = estimatedError
        self.tick = tick
        self.nominalTick = nominalTick
    }

    /// `TIME_ERROR`: the return value of a kernel that is not synchronised.
    package static let timeError: Int32 = 5

    /// Whether the kernel considers its clock synchronised: neither `STA_UNSYNC` set nor
    /// `TIME_ERROR` returned.
    package var isSynchronized: Bool {
        clockState != Self.timeError && !status.contains(.unsynchronized)
    }

    /// The phase adjustment still to be applied, PLL and `adjtime` together, as a magnitude.
    package var remainingSlew: Duration {
        abs(offset) + abs(singleShotOffset)
    }

    /// How far ``tick`` moves the clock's rate from nominal, as a fraction (0 at the nominal tick).
    package var tickRateOffset: Double {
        guard nominalTick > .zero else { return 0 }
        return abs((tick - nominalTick) / nominalTick)
    }

    /// Whether the kernel is slewing: a phase adjustment remains, or the tick is off nominal.
    package var isSlewing: Bool {
        remainingSlew > .zero || tickRateOffset > 0
    }

    /// The name of ``clockState``: `ok`, `insert_leap`, `delete_leap`, `leap_in_progress`,
    /// `leap_occurred`, `error`, or `unknown_N`.
    package var clockStateName: String {
        switch clockState {
        case 0: "ok"
        case 1: "insert_leap"
        case 2: "delete_leap"
        case 3: "leap_in_progress"
        case 4: "leap_occurred"
        case 5: "error"
        default: "unknown_\(clockState)"
        }
    }
}
