import ClockCore
import TimeValues

/// The boot-time clock of a ``SimulatedMachine``, which is also its time base (a
/// ``TimeBaseClock`` with suspend), unlike ``SimulatedMonotonicClock``.
package struct SimulatedMachineClock: MonotonicClock, TimeBaseClock {
    package let machine: SimulatedMachine

    package init(machine: SimulatedMachine) { self.machine = machine }

    package func now() -> MonotonicInstant { machine.bootReading }

    package func read() -> TimeBaseReading { machine.reading() }

    package func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        let reading = machine.reading()
        return (Int64(truncatingIfNeeded: reading.base.awake.attoseconds / 1_000_000_000), reading.epoch)
    }

    package var exchangeClockIsBase: Bool { false }
}
