import NetClockPlatform
import TimeValues

/// An instant on the holdover time base: awake time counted by the raw oscillator plus time spent
/// suspended, both since boot.
///
/// The two parts are kept apart because they are measured by different clocks: awake time by the
/// oscillator whose frequency the clock learns (``FrequencyTracker``), suspended time by whatever
/// the kernel measures suspend with (the RTC, or a clock source that runs through suspend), which
/// gets its own tolerance (``ClockPolicy/suspendTolerancePPM``).
package struct TimeBaseInstant: Sendable, Hashable {
    /// Awake time since boot on the raw oscillator (`CLOCK_MONOTONIC_RAW`).
    package var awake: Duration
    /// Time spent suspended since boot (`CLOCK_BOOTTIME − CLOCK_MONOTONIC`).
    package var suspended: Duration

    /// Creates an instant from its parts.
    package init(awake: Duration, suspended: Duration = .zero) {
        self.awake = awake
        self.suspended = suspended
    }

    /// Awake plus suspended time: how much time the base has counted since boot.
    package var total: Duration { awake + suspended }

    /// The same instant on clocks whose time-namespace offsets moved by `change`: the raw
    /// oscillator by the monotonic offset, the suspended time by the boot-time offset less it.
    package func shifted(by change: TimeNamespaceOffsets) -> TimeBaseInstant {
        TimeBaseInstant(awake: awake + change.monotonic, suspended: suspended + change.suspended)
    }
}

/// The clocks read together at one moment: the exchange clock (the one NTP and HTTP exchanges are
/// stamped with, `CLOCK_BOOTTIME` in production) and the time base.
package struct TimeBaseReading: Sendable, Hashable {
    /// The exchange clock's reading.
    package var exchange: MonotonicInstant
    /// The time base's reading.
    package var base: TimeBaseInstant
    /// How far apart the readings may lie.
    package var uncertainty: Duration
    /// The suspend epoch (``Syscalls/suspendEpoch()``) during the reading: while it is unchanged,
    /// the suspended time is too.
    package var epoch: Int64

    /// Creates a reading from its parts.
    package init(
        exchange: MonotonicInstant, base: TimeBaseInstant, uncertainty: Duration = .zero, epoch: Int64 = 0
    ) {
        self.exchange = exchange
        self.base = base
        self.uncertainty = uncertainty
        self.epoch = epoch
    }
}

/// Where an ``AnchoredClock`` reads its holdover time base: the kernel's raw oscillator and
/// suspend time in production (``SystemTimeBase``), the exchange clock itself for simulated clocks
/// (``ExchangeClockTimeBase``), or a simulation that moves the parts independently in tests.
package protocol TimeBaseClock: Sendable {
    /// The exchange clock and the time base, read together.
    func read() -> TimeBaseReading

    /// The awake reading in whole nanoseconds and the suspend epoch, as cheaply as possible: what
    /// ``AnchoredClock/now()`` reads. The epoch must change whenever the suspended time does.
    func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64)

    /// Whether the exchange clock runs exactly at the time base's rate, so that mapping an instant
    /// of one onto the other costs nothing however far apart they are (true when the exchange clock
    /// *is* the time base). When false, the distance is charged at the kernel's possible slew
    /// (``KernelDiscipline/mappingRate``).
    var exchangeClockIsBase: Bool { get }
}

/// The production time base on Linux: `CLOCK_MONOTONIC_RAW` for awake time, which no time daemon
/// can slew, plus `CLOCK_BOOTTIME − CLOCK_MONOTONIC` for the time spent suspended; the exchange
/// clock is `CLOCK_BOOTTIME`. See ``TimeBaseSample``.
package struct SystemTimeBase: TimeBaseClock {
    /// Creates a reader of the kernel's clocks.
    package init() {}

    /// One paired reading (``Syscalls/timeBaseSample()``).
    package func read() -> TimeBaseReading {
        Self.reading(Syscalls.timeBaseSample())
    }

    /// `CLOCK_MONOTONIC_RAW`, then the suspend epoch (in that order: a resume between the two
    /// changes the epoch, so a raw reading taken before it is never paired with a stale suspend).
    @inline(__always)
    package func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        Syscalls.awakeNanosecondsAndSuspendEpoch()
    }

    /// False: the kernel may slew `CLOCK_BOOTTIME` against the raw oscillator.
    package var exchangeClockIsBase: Bool { false }

    /// The reading a kernel sample gives.
    static func reading(_ sample: TimeBaseSample) -> TimeBaseReading {
        TimeBaseReading(
            exchange: MonotonicInstant(sinceOrigin: .nanoseconds(sample.boot)),
            base: TimeBaseInstant(
                awake: .nanoseconds(sample.awake), suspended: .nanoseconds(sample.suspended)),
            uncertainty: .nanoseconds(sample.uncertainty), epoch: sample.epoch)
    }
}

/// A time base that is the exchange clock itself, with no suspended part: for simulated monotonic
/// clocks in tests, and wherever no separate raw clock exists. Its epoch never changes.
package struct ExchangeClockTimeBase: TimeBaseClock {
    /// The exchange clock.
    let clock: any MonotonicClock

    /// Wraps `clock`.
    package init(_ clock: some MonotonicClock) {
        self.clock = clock
    }

    /// The clock's reading, as both the exchange instant and the awake time.
    package func read() -> TimeBaseReading {
        let now = clock.now()
        return TimeBaseReading(exchange: now, base: TimeBaseInstant(awake: now.sinceOrigin))
    }

    /// The clock's reading in nanoseconds; the epoch is always 0.
    package func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        (clock.now().sinceOrigin.truncatedNanoseconds, 0)
    }

    /// True: the two are the same clock.
    package var exchangeClockIsBase: Bool { true }
}

/// Reads an ``AnchoredClock``'s time base as cheaply as possible: the kernel's clocks directly for
/// ``ClockHardware/system`` (no existential call on the hot path), any other source through its
/// protocol.
package struct TimeBaseReader: Sendable {
    private let readsSystem: Bool
    private let source: any TimeBaseClock

    /// Reads `hardware`'s time base, directly when it is the kernel's.
    init(_ hardware: ClockHardware) {
        self.readsSystem = hardware.readsKernelClocks
        self.source = hardware.timeBase
    }

    /// The awake reading and the suspend epoch.
    @inline(__always)
    func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        guard readsSystem else { return source.awakeNanosecondsAndEpoch() }
        return Syscalls.awakeNanosecondsAndSuspendEpoch()
    }

    /// A full paired reading.
    package func read() -> TimeBaseReading { source.read() }

    /// Whether the exchange clock is the base (see ``TimeBaseClock/exchangeClockIsBase``).
    var exchangeClockIsBase: Bool { source.exchangeClockIsBase }
}
