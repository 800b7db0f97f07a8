import Synchronization
import NetClockPlatform
import TimeValues

/// The system wall clock for the first `reads` reads (by default as many as a burst takes for its
/// mapping, `TimeMapping.attempts`), then `step` (by default an hour) ahead for every later read:
/// a wall-clock step in the middle of a measurement.
package final class SteppingWallClock: WallClock {
    private let count = Mutex(0)
    private let reads: Int
    private let step: Duration

    package init(after reads: Int = TimeMapping.attempts, step: Duration = .seconds(3600)) {
        self.reads = reads
        self.step = step
    }

    package func now() -> UnixTime {
        let count = count.withLock { value in
            value += 1
            return value
        }
        return SystemWallClock().now() + (count > reads ? step : .zero)
    }
}
