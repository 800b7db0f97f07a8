import ClockCore
import NetClockPlatform
import TimeValues

/// The clocks of a ``SimulatedMachine`` as a process in a time namespace reads them: the boot-time
/// clock shifted by the namespace's boot-time offset, the raw oscillator by its monotonic offset,
/// the suspended time (boot-time − monotonic) by their difference. The suspend epoch (monotonic −
/// wall) moves with the monotonic offset, as the kernel's coarse clocks do.
package struct NamespacedMachineClock: MonotonicClock, TimeBaseClock {
    package let machine: SimulatedMachine
    package let offsets: TimeNamespaceOffsets

    package init(machine: SimulatedMachine, offsets: TimeNamespaceOffsets) {
        self.machine = machine
        self.offsets = offsets
    }

    package func now() -> MonotonicInstant { machine.bootReading + offsets.bootTime }

    package func read() -> TimeBaseReading {
        var reading = machine.clock.read()
        reading.exchange = reading.exchange + offsets.bootTime
        reading.base = reading.base.shifted(by: offsets)
        reading.epoch &+= Int64(truncatingIfNeeded: offsets.monotonic.attoseconds / 1_000_000_000)
        return reading
    }

    package func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        let reading = read()
        return (Int64(truncatingIfNeeded: reading.base.awake.attoseconds / 1_000_000_000), reading.epoch)
    }

    package var exchangeClockIsBase: Bool { false }
}
