import ClockCore
import Foundation
import NetworkClock
import SNTP
import Synchronization
import TimeBase

/// A simulated world: true time advances when the test says so; the monotonic clock follows it at a
/// chosen frequency error; the wall clock follows it plus whatever steps the "user" applied.
final class SimulatedTimeline: Sendable {
    private struct State {
        var trueElapsed: Duration = .zero
        var wallStep: Duration = .zero
    }

    /// The true time when the simulation starts.
    let start: UnixTime
    /// The monotonic clock's reading when the simulation starts.
    let monotonicOrigin: Duration
    /// The monotonic clock's frequency error: +50 means it counts 50 µs too many per second.
    let monotonicDriftPPM: Double
    private let state = Mutex(State())

    init(
        start: UnixTime = UnixTime(seconds: 1_780_000_000, nanoseconds: 250_000_000),
        monotonicOrigin: Duration = .seconds(5_000), monotonicDriftPPM: Double = 0
    ) {
        self.start = start
        self.monotonicOrigin = monotonicOrigin
        self.monotonicDriftPPM = monotonicDriftPPM
    }

    /// The simulated truth.
    var trueTime: UnixTime { start + state.withLock { $0.trueElapsed } }

    /// The monotonic reading at the current true time.
    var monotonicReading: MonotonicInstant {
        MonotonicInstant(
            sinceOrigin: monotonicOrigin + monotonicElapsed(for: state.withLock { $0.trueElapsed }))
    }

    /// The wall-clock reading: the truth plus the user's steps.
    var wallReading: UnixTime { state.withLock { start + $0.trueElapsed + $0.wallStep } }

    /// Lets true time pass.
    func advance(by duration: Duration) {
        state.withLock { $0.trueElapsed += duration }
    }

    /// Lets time pass until the monotonic clock reads at least `instant` (for sleeping clocks).
    func advanceMonotonic(to instant: MonotonicInstant) {
        state.withLock { state in
            let target = instant.sinceOrigin - monotonicOrigin
            guard target > monotonicElapsed(for: state.trueElapsed) else { return }
            var trueElapsed = monotonicDriftPPM == 0 ? target : target / (1 + monotonicDriftPPM * 1e-6)
            while monotonicElapsed(for: trueElapsed) < target { trueElapsed += .nanoseconds(1) }
            state.trueElapsed = trueElapsed
        }
    }

    /// The user changes the system time by `step`.
    func stepWallClock(by step: Duration) {
        state.withLock { $0.wallStep += step }
    }

    /// The monotonic clock as a source for an ``AnchoredClock``.
    var monotonicClock: SimulatedMonotonicClock { SimulatedMonotonicClock(timeline: self) }

    /// The wall clock as a source for an ``AnchoredClock``.
    var wallClock: SimulatedWallClock { SimulatedWallClock(timeline: self) }

    /// An anchor taken now with the exact true time and the given bound.
    func anchor(bound: Duration, source: TimeSource = .ntp, server: String? = "sim.example:123") -> Anchor {
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

/// A monotonic clock reading the simulated timeline.
struct SimulatedMonotonicClock: MonotonicClock {
    let timeline: SimulatedTimeline
    func now() -> MonotonicInstant { timeline.monotonicReading }
}

/// A wall clock reading the simulated timeline, including the user's steps.
struct SimulatedWallClock: WallClock {
    let timeline: SimulatedTimeline
    func now() -> UnixTime { timeline.wallReading }
}

/// A `Clock` for ``AnchoredClock/ticks(every:sleepingOn:)`` whose sleeps return at once after
/// advancing the simulated monotonic clock to the deadline plus a fixed lateness, and after running
/// a hook (e.g. the user stepping the wall clock while the countdown sleeps).
struct SimulatedSleepClock: Clock {
    struct Instant: InstantProtocol {
        var reading: MonotonicInstant
        func advanced(by duration: Duration) -> Instant { Instant(reading: reading + duration) }
        func duration(to other: Instant) -> Duration { other.reading - reading }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.reading < rhs.reading }
    }

    let timeline: SimulatedTimeline
    var lateness: Duration = .zero
    var onSleep: @Sendable () -> Void = {}

    var now: Instant { Instant(reading: timeline.monotonicReading) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        timeline.advanceMonotonic(to: deadline.reading + lateness)
        onSleep()
    }
}

/// `CLOCK_BOOTTIME` as a plain monotonic clock (not ``BootTimeClock``), so that an
/// ``AnchoredClock`` uses it as its own time base (``ExchangeClockTimeBase``): anchors are then
/// placed exactly, for tests whose expected bounds are exact, instead of at the kernel's possible
/// slew between `CLOCK_BOOTTIME` and the raw oscillator.
struct BootTimeAsTimeBase: MonotonicClock {
    func now() -> MonotonicInstant { BootTimeClock().now() }
}

/// Anchor-store test helpers.
extension Result where Failure == AnchorStoreError {
    /// The error code, or `nil` on success.
    var failureCode: AnchorStoreError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
