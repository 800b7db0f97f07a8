import ClockCore
import Synchronization
import TimeValues

/// A simulated machine with the clocks ``SystemTimeBase`` reads, each moving as on Linux.
///
/// True time advances when the test says so. While awake, the raw oscillator
/// (`CLOCK_MONOTONIC_RAW`) counts it at the oscillator's frequency error, which the test may change
/// at any moment (a thermal step); the boot-time clock counts the raw oscillator times
/// `1 + kernel slew` (a time daemon, or none), plus suspended time. ``suspend(for:measuredAs:)``
/// stops the oscillator and adds the suspend, as the kernel measured it, to the boot-time clock and
/// to the suspended time, and changes the suspend epoch (as a resume changes the kernel's
/// wall-to-monotonic offset). The wall clock is the truth plus the user's steps.
///
/// ``clock`` is both the exchange clock (``MonotonicClock``, `CLOCK_BOOTTIME`) and the time
/// base (``TimeBaseClock``), so an ``AnchoredClock`` given it as its monotonic clock reads both
/// from the one simulation, as the real one reads both kernels' clocks. For tests whose expected
/// bounds are exact on a clock that is its own time base, use ``SimulatedTimeline``.
package final class SimulatedMachine: Sendable {
    private struct State {
        var trueElapsed: Duration = .zero
        var awake: Duration
        var suspended: Duration = .zero
        /// Boot-time clock minus (awake + suspended): what the kernel's slew has added.
        var slew: Duration = .zero
        var oscillatorPPM: Double
        var kernelSlewPPM: Double = 0
        var wallStep: Duration = .zero
        var epoch: Int64 = 7
    }

    /// The true time when the simulation starts.
    package let start: UnixTime
    private let state: Mutex<State>

    /// A machine whose oscillator runs `oscillatorPPM` fast (negative: slow), booted
    /// `awakeOrigin` ago.
    package init(
        start: UnixTime = UnixTime(seconds: 1_780_000_000, nanoseconds: 250_000_000),
        awakeOrigin: Duration = .seconds(5_000), oscillatorPPM: Double = 0
    ) {
        self.start = start
        self.state = Mutex(State(awake: awakeOrigin, oscillatorPPM: oscillatorPPM))
    }

    /// The simulated truth.
    package var trueTime: UnixTime { start + state.withLock { $0.trueElapsed } }

    /// The wall-clock reading: the truth plus the user's steps.
    package var wallReading: UnixTime { state.withLock { start + $0.trueElapsed + $0.wallStep } }

    /// `CLOCK_BOOTTIME`.
    package var bootReading: MonotonicInstant {
        state.withLock { MonotonicInstant(sinceOrigin: Self.whole($0.awake + $0.suspended + $0.slew)) }
    }

    /// The time base (`CLOCK_MONOTONIC_RAW`, suspended time).
    package var baseReading: TimeBaseInstant {
        state.withLock { TimeBaseInstant(awake: Self.whole($0.awake), suspended: Self.whole($0.suspended)) }
    }

    /// The suspend epoch.
    package var epoch: Int64 { state.withLock { $0.epoch } }

    /// Lets true time pass while awake.
    package func advance(by duration: Duration) {
        state.withLock { state in
            state.trueElapsed += duration
            let counted = duration + duration * (state.oscillatorPPM * 1e-6)
            state.awake += counted
            state.slew += counted * (state.kernelSlewPPM * 1e-6)
        }
    }

    /// Suspends for `duration` of true time; the kernel adds `measured` (default: exactly
    /// `duration`) to the boot-time clock on resume.
    package func suspend(for duration: Duration, measuredAs measured: Duration? = nil) {
        state.withLock { state in
            state.trueElapsed += duration
            state.suspended += measured ?? duration
            state.epoch &+= 1
        }
    }

    /// Freezes the machine's processes for `duration` of true time, as a checkpoint that is
    /// restored later: their clocks (awake, suspended, boot-time) read on exactly where they
    /// stopped, as a restore's new time-namespace offsets make them, while true time and the wall
    /// clock moved on, so the suspend epoch (monotonic − wall) changes.
    package func freeze(for duration: Duration) {
        state.withLock { state in
            state.trueElapsed += duration
            state.epoch &+= 1
        }
    }

    /// Changes the oscillator's frequency error from now on.
    package func setOscillator(ppm: Double) {
        state.withLock { $0.oscillatorPPM = ppm }
    }

    /// Makes the kernel slew the boot-time clock against the oscillator by `ppm` from now on.
    package func setKernelSlew(ppm: Double) {
        state.withLock { $0.kernelSlewPPM = ppm }
    }

    /// The user changes the system time by `step` (which, as on Linux, changes the epoch too).
    package func stepWallClock(by step: Duration) {
        state.withLock { state in
            state.wallStep += step
            state.epoch &+= 1
        }
    }

    /// An anchor taken now with the exact true time and the given bound, on the boot-time clock.
    package func anchor(bound: Duration, source: TimeSource = .ntp, server: String? = "sim.example:123")
        -> Anchor
    {
        Anchor(trueTime: trueTime, monotonic: bootReading, errorBound: bound, source: source, server: server)
    }

    /// The exchange clock and time base of this machine.
    package var clock: SimulatedMachineClock { SimulatedMachineClock(machine: self) }

    /// The wall clock of this machine.
    package var wallClock: SimulatedMachineWallClock { SimulatedMachineWallClock(machine: self) }

    /// Truncated to whole nanoseconds, like the kernel's clocks.
    private static func whole(_ duration: Duration) -> Duration {
        .nanoseconds(Int64(truncatingIfNeeded: duration.attoseconds / 1_000_000_000))
    }

    /// The exchange clock and time base, read at once.
    func reading() -> TimeBaseReading {
        state.withLock { state in
            TimeBaseReading(
                exchange: MonotonicInstant(
                    sinceOrigin: Self.whole(state.awake + state.suspended + state.slew)),
                base: TimeBaseInstant(awake: Self.whole(state.awake), suspended: Self.whole(state.suspended)),
                uncertainty: .zero, epoch: state.epoch)
        }
    }
}
