import ClockCore
import Foundation
import Synchronization
import TimeValues

/// A simulated machine for `netclock-bench holdover`: an undisciplined oscillator whose frequency
/// error is a constant plus a daily thermal cycle plus a step, counting awake time; suspends that
/// stop it and that the kernel measures with an RTC (20 ppm fast, whole seconds); no time daemon
/// (the kernel is unsynchronised), so `CLOCK_BOOTTIME` is the raw oscillator plus the measured
/// suspended time. Unlike ``SimulatedMachine`` (stepped by tests, exact to the nanosecond), it
/// integrates a frequency that varies over days, in 10 s steps.
package final class HoldoverMachine: Sendable {
    /// The oscillator: `basePPM + cyclePPM·sin(2π·t/1 day + phase)`, plus `stepPPM` from `stepAt`.
    package struct Oscillator: Sendable {
        package var basePPM: Double
        package var cyclePPM: Double
        package var phase: Double
        package var stepPPM: Double
        package var stepAt: Double

        package init(
            basePPM: Double = 80.0, cyclePPM: Double = 2.0, phase: Double = 0.0, stepPPM: Double = 6.0,
            stepAt: Double = 1.5 * 86_400
        ) {
            self.basePPM = basePPM
            self.cyclePPM = cyclePPM
            self.phase = phase
            self.stepPPM = stepPPM
            self.stepAt = stepAt
        }

        package func ppm(at t: Double) -> Double {
            basePPM + cyclePPM * sin(2 * .pi * t / 86_400 + phase) + (t >= stepAt ? stepPPM : 0)
        }
    }

    private struct State {
        var trueSeconds = 0.0
        var awake = Duration.seconds(10_000)
        var suspended = Duration.zero
        var epoch: Int64 = 1
    }

    /// The true time when the simulation starts.
    package let start = UnixTime(seconds: 1_790_000_000)
    package let oscillator: Oscillator
    private let state = Mutex(State())

    package init(oscillator: Oscillator) {
        self.oscillator = oscillator
    }

    /// True seconds since the start.
    package var trueSeconds: Double { state.withLock { $0.trueSeconds } }

    /// The true time now.
    package var trueTime: UnixTime { start + .seconds(trueSeconds) }

    /// Lets `seconds` of true time pass awake, integrating the oscillator in 10 s steps.
    package func advance(by seconds: Double) {
        state.withLock { state in
            var left = seconds
            while left > 0 {
                let step = min(10, left)
                let ppm = oscillator.ppm(at: state.trueSeconds + step / 2)
                state.awake += .seconds(step * (1 + ppm * 1e-6))
                state.trueSeconds += step
                left -= step
            }
        }
    }

    /// Suspends for `seconds` of true time; the kernel adds `measured` seconds.
    package func suspend(for seconds: Double, measured: Double) {
        state.withLock { state in
            state.trueSeconds += seconds
            state.suspended += .seconds(measured)
            state.epoch &+= 1
        }
    }

    /// Truncated to whole nanoseconds, like the kernel's clocks.
    private static func whole(_ duration: Duration) -> Duration {
        .nanoseconds(Int64(duration.attoseconds / 1_000_000_000))
    }

    /// The time base now.
    package func reading() -> TimeBaseReading {
        state.withLock { state in
            let awake = Self.whole(state.awake)
            let suspended = Self.whole(state.suspended)
            return TimeBaseReading(
                exchange: MonotonicInstant(sinceOrigin: awake + suspended),
                base: TimeBaseInstant(awake: awake, suspended: suspended), epoch: state.epoch)
        }
    }
}
