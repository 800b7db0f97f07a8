import TimeValues

/// `CLOCK_BOOTTIME` of a ``HoldoverMachine``: what today's design extrapolates on, and what
/// anchors are stamped with.
package struct HoldoverBootClock: MonotonicClock {
    package let machine: HoldoverMachine
    package init(machine: HoldoverMachine) { self.machine = machine }
    package func now() -> MonotonicInstant { machine.reading().exchange }
}
