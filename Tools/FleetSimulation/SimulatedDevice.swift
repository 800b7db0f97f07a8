import ClockCore
import NetClockPlatform
import TimeValues
import TimeDoubles

/// One client's device as one policy's run sees it: a ``SimulatedMachine`` per boot whose
/// oscillator follows the client's frequency error (constant plus a linear wander), moved forward
/// event by event. The kernel measures suspends exactly and no daemon slews its clocks.
package final class SimulatedDevice {
    /// The true time at the start of the simulation.
    package static let epoch = UnixTime(seconds: 1_790_035_200)

    /// The client.
    package let schedule: ClientSchedule
    /// The machine of the current boot.
    package private(set) var machine: SimulatedMachine
    /// Seconds since the start of the simulation (true time).
    package private(set) var now: Double
    /// How many times the device rebooted during the simulation (a boot identity).
    package private(set) var boot = 0
    /// Where the previous boot's time base stood when it rebooted.
    package private(set) var previousBootEnd: TimeBaseInstant?

    /// The device at the start of the simulation, booted at `schedule.bootedAt`.
    package init(schedule: ClientSchedule) {
        self.schedule = schedule
        self.now = schedule.bootedAt
        self.machine = SimulatedDevice.boot(at: schedule.bootedAt)
        advance(to: 0)
    }

    /// What the raw oscillator reads when the device boots.
    package static let awakeAtBoot = Duration.seconds(10)

    /// A machine booted at `time`.
    private static func boot(at time: Double) -> SimulatedMachine {
        SimulatedMachine(start: epoch + .seconds(time), awakeOrigin: awakeAtBoot, oscillatorPPM: 0)
    }

    /// The exchange clock and time base.
    package var clock: SimulatedMachineClock { machine.clock }

    /// The true time now.
    package var trueTime: UnixTime { machine.trueTime }

    /// The oscillator's frequency error now, in ppm.
    package var ppm: Double { schedule.ppm(at: now) }

    /// Lets time pass awake until `time` (nothing when it is not later), at the frequency error in
    /// the middle of the stretch (exact for the linear wander).
    package func advance(to time: Double) {
        guard time > now else { return }
        machine.setOscillator(ppm: schedule.ppm(at: (now + time) / 2))
        machine.advance(by: .seconds(time - now))
        now = time
    }

    /// Suspends for `duration` seconds; the kernel measures it exactly.
    package func suspend(for duration: Double) {
        machine.suspend(for: .seconds(duration))
        now += duration
    }

    /// Reboots now: a new machine, a new boot identity.
    package func reboot() {
        previousBootEnd = machine.baseReading
        machine = Self.boot(at: now)
        boot += 1
    }

    /// The exchange-clock distance that `seconds` of true time from now count while awake.
    package func exchangeDistance(overTrueSeconds seconds: Double) -> Duration {
        .seconds(seconds * (1 + schedule.ppm(at: now + seconds / 2) * 1e-6))
    }
}
