import TimeValues

/// The wall clock of a ``SimulatedMachine``: the truth plus the user's steps.
package struct SimulatedMachineWallClock: WallClock {
    package let machine: SimulatedMachine
    package init(machine: SimulatedMachine) { self.machine = machine }
    package func now() -> UnixTime { machine.wallReading }
}
