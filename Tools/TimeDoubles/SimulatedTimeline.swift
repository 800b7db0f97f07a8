import ClockCore
import Synchronization
import TimeValues

/// A simulated world: true time advances when the test says so; the monotonic clock follows it at a
/// chosen frequency error; the wall clock follows it plus whatever steps the "user" applied.
///
/// Its ``monotonicClock`` is a plain ``MonotonicClock`` (no suspend, no time base of its own), so an
/// ``AnchoredClock`` uses it as its own time base: use it where the expected bounds are exact. For
/// suspends, a separate oscillator and kernel slew, use ``SimulatedMachine``.
package final class SimulatedTimeline: Sendable {
    private struct State {
        var trueElapsed: Duration = .zero
        var wallStep: Duration = .zero
    }

    /// The true time when the simulation starts.
    package let start: UnixTime
    /// The monotonic clock's reading when the simulation starts.
    package let monotonicOrigin: Duration
    /// The monotonic clock's frequency error: +50 means it counts 50 µs too many per second.
    package let monotonicDriftPPM: Double
    private let state = Mutex(State())

    package init(
        start: UnixTime = UnixTime(seconds: 1_780_000_000, nanoseconds: 250_000_000),
        monotonicOrigin: Duration = .seconds(5_000), monotonicDriftPPM: Double = 0
    ) {
        self.start = start
        self.monotonicOrigin = monotonicOrigin
        self.monotonicDriftPPM = monotonicDriftPPM
    }

    /// The simulated truth.
    package var trueTime: UnixTime { start + state.withLock { $0.trueElapsed } }

    /// The monotonic reading at the current true time.
    package var monotonicReading: MonotonicInstant {
        MonotonicInstant(
            sinceOrigin: monotonicOrigin + monotonicElapsed(for: state.withLock { $0.trueElapsed }))
    }

    /// The wall-clock reading: the truth plus the user's steps.
    package var wallReading: UnixTime { state.withLock { start + $0.trueElapsed + $0.wallStep } }

    /// Lets true time pass.
    package func advance(by duration: Duration) {
        state.withLock { $0.trueElapsed += duration }
    }

    /// Lets time pass until the monotonic clock reads at least `instant` (for sleeping clocks).
    package func advanceMonotonic(to instant: MonotonicInstant) {
        state.withLock { state in
            let target = instant.sinceOrigin - monotonicOrigin
            guard target > monotonicElapsed(for: state.trueElapsed) else { return }
            var trueElapsed = monotonicDriftPPM == 0 ? target : target / (1 + monotonicDriftPPM * 1e-6)
            while monotonicElapsed(for: trueElapsed) < target { trueElapsed += .nanoseconds(1) }
            state.trueElapsed = trueElapsed
        }
    }

    /// The user changes the system time by `step`.
    package func stepWallClock(by step: Duration) {
        state.withLock { $0.wallStep += step }
    }

    /// The monotonic clock as a source for an ``AnchoredClock``.
    package var monotonicClock: SimulatedMonotonicClock { SimulatedMonotonicClock(timeline: self) }

    /// The wall clock as a source for an ``AnchoredClock``.
    package var wallClock: SimulatedWallClock { SimulatedWallClock(timeline: self) }

    /// An anchor taken now with the exact true time and the given bound.
    package func anchor(bound: Duration, source: TimeSource = .ntp, server: String? = "sim.example:123")
        -> Anchor
    {
        Anchor(
            trueTime: trueTime, monotonic: monotonicReading, errorBound: bound, source: source, server: server
        )
    }

    /// Monotonic time elapsed for a true elapsed time, truncated to whole nanoseconds like the
    /// kernel's clocks.
    private func monotonicElapsed(for trueElapsed: Duration) -> Duration {
        guard monotonicDriftPPM != 0 else { return trueElapsed }
        let exact = trueElapsed + trueElapsed * (monotonicDriftPPM * 1e-6)
        return .nanoseconds(Int64(exact.attoseconds / 1_000_000_000))
    }
}
