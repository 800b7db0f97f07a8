import ClockCore
import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import Synchronization
import TimeBase

/// A simulated machine for `netclock-bench holdover`: an undisciplined oscillator whose frequency
/// error is a constant plus a daily thermal cycle plus a step, counting awake time; suspends that
/// stop it and that the kernel measures with an RTC (20 ppm fast, whole seconds); no time daemon
/// (the kernel is unsynchronised), so `CLOCK_BOOTTIME` is the raw oscillator plus the measured
/// suspended time.
final class HoldoverMachine: Sendable {
    /// The oscillator: `basePPM + cyclePPM·sin(2π·t/1 day + phase)`, plus `stepPPM` from `stepAt`.
    struct Oscillator: Sendable {
        var basePPM = 80.0
        var cyclePPM = 2.0
        var phase = 0.0
        var stepPPM = 6.0
        var stepAt = 1.5 * 86_400

        func ppm(at t: Double) -> Double {
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
    let start = UnixTime(seconds: 1_790_000_000)
    let oscillator: Oscillator
    private let state = Mutex(State())

    init(oscillator: Oscillator) {
        self.oscillator = oscillator
    }

    /// True seconds since the start.
    var trueSeconds: Double { state.withLock { $0.trueSeconds } }

    /// The true time now.
    var trueTime: UnixTime { start + .seconds(trueSeconds) }

    /// Lets `seconds` of true time pass awake, integrating the oscillator in 10 s steps.
    func advance(by seconds: Double) {
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
    func suspend(for seconds: Double, measured: Double) {
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
    func reading() -> TimeBaseReading {
        state.withLock { state in
            let awake = Self.whole(state.awake)
            let suspended = Self.whole(state.suspended)
            return TimeBaseReading(
                exchange: MonotonicInstant(sinceOrigin: awake + suspended),
                base: TimeBaseInstant(awake: awake, suspended: suspended), epoch: state.epoch)
        }
    }
}

/// `CLOCK_BOOTTIME` of a ``HoldoverMachine``: what today's design extrapolates on, and what
/// anchors are stamped with.
struct HoldoverBootClock: MonotonicClock {
    let machine: HoldoverMachine
    func now() -> MonotonicInstant { machine.reading().exchange }
}

/// The raw oscillator and suspended time of a ``HoldoverMachine``: the holdover time base.
struct HoldoverTimeBase: TimeBaseClock {
    let machine: HoldoverMachine
    func read() -> TimeBaseReading { machine.reading() }
    func awakeNanosecondsAndEpoch() -> (awake: Int64, epoch: Int64) {
        let reading = machine.reading()
        return (Int64(reading.base.awake.attoseconds / 1_000_000_000), reading.epoch)
    }
    var exchangeClockIsBase: Bool { false }
}

/// The wall clock of a ``HoldoverMachine`` (never read for time; only for offsets).
struct HoldoverWallClock: WallClock {
    let machine: HoldoverMachine
    func now() -> UnixTime { machine.trueTime }
}
