import TimeValues

/// The wall clock of a ``SimulatedMachine`` read by a thread that is preempted just before every
/// wall-clock read: `preemption` of true time passes (the machine advances, awake) between
/// whatever the thread read before and the wall clock it now reads. A reading taken apart from
/// a monotonic one (or from the clock's own estimate) is then that much late.
package struct PreemptedWallClock: WallClock {
    package let machine: SimulatedMachine
    package let preemption: Duration

    package init(machine: SimulatedMachine, preemption: Duration) {
        self.machine = machine
        self.preemption = preemption
    }

    package func now() -> UnixTime {
        machine.advance(by: preemption)
        return machine.wallReading
    }
}
