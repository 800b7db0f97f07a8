import ClockCore

/// The raw oscillator and suspended time of a ``HoldoverMachine``: the holdover time base.
package struct HoldoverTimeBase: TimeBaseClock {
    package let machine: HoldoverMachine
    package init(machine: HoldoverMachine) { self.machine = machine }
    package func read() -> TimeBaseReading { machine.reading() }
    package func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        let reading = machine.reading()
        return (Int64(reading.base.awake.attoseconds / 1_000_000_000), reading.epoch)
    }
    package var exchangeClockIsBase: Bool { false }
}
