import TimeValues

/// The wall clock of a ``HoldoverMachine`` (never read for time; only for offsets): the truth.
package struct HoldoverWallClock: WallClock {
    package let machine: HoldoverMachine
    package init(machine: HoldoverMachine) { self.machine = machine }
    package func now() -> UnixTime { machine.trueTime }
}
