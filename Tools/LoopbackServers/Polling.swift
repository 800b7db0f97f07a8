import NetClockPlatform
import SNTP
import TimeValues

/// Waiting for a condition that another thread makes true (a fake server's counters, a pool's
/// threads going idle), bounded in time: what tests and the fake servers poll for, in one place.
package enum Polling {
    /// Checks `condition` every `interval` until it holds or `timeout` has passed, blocking the
    /// calling thread (the fake servers' callers are synchronous tests and tools).
    /// - Returns: whether it held within `timeout`.
    package static func wait(
        every interval: Duration = .milliseconds(1), timeout: Duration, until condition: () -> Bool
    ) -> Bool {
        let clock = BootTimeClock()
        let deadline = clock.now() + timeout
        while true {
            if condition() { return true }
            if clock.now() >= deadline { return false }
            Syscalls.sleep(interval)
        }
    }
}

extension BlockingPool {
    /// Waits (5 ms steps, up to 2 s) until every thread is idle with nothing queued; how long that
    /// took. What a test of abandoned work reads after its caller returned: a thread still busy
    /// then is one a hostile peer kept.
    package func timeUntilIdle() async -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .seconds(2) {
            let statistics = statistics
            if statistics.idle == statistics.threads && statistics.queued == 0 { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return clock.now - start
    }
}
