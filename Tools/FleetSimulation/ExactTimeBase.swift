import ClockCore
import TimeBase
import TimeDoubles

/// A ``SimulatedMachine``'s clocks, declared to be one: its exchange clock is its time base (true of
/// the simulated machine, whose kernel never slews). An ``AnchoredClock`` on it then maps an instant
/// some distance away without charging the kernel's possible slew over the distance, which is
/// what the variant `--schedule-on-time-base` needs: the bound a later `now()` will read, asked
/// for ahead of time.
package struct ExactTimeBase: MonotonicClock, TimeBaseClock {
    /// The machine's clocks.
    package let clock: SimulatedMachineClock

    /// Wraps `clock`.
    package init(_ clock: SimulatedMachineClock) {
        self.clock = clock
    }

    /// The boot-time clock.
    package func now() -> MonotonicInstant { clock.now() }

    /// The machine's paired reading.
    package func read() -> TimeBaseReading { clock.read() }

    /// The raw oscillator and the suspend epoch.
    package func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        clock.awakeNanosecondsAndEpoch()
    }

    /// True: the exchange clock counts the time base exactly.
    package var exchangeClockIsBase: Bool { true }
}
