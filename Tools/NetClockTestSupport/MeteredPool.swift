import NetClockPlatform

/// A blocking pool of one thread that stays, with that thread's CPU clock read at the start: the
/// CPU the calls run on it cost, whatever runs beside them (the hostile-peer suites' meter).
package struct MeteredPool: Sendable {
    /// One thread, kept 60 s when idle, so that its clock stays the clock of every call's thread.
    package let pool: BlockingPool
    private let clock: ThreadCPUClock
    private let start: Duration

    /// A new pool and its thread's clock, or nil where the platform gives no thread CPU clock.
    package static func make() async -> MeteredPool? {
        let pool = BlockingPool(maximumThreads: 1, idleTimeout: .seconds(60))
        guard let clock = try? await pool.run({ _ in ThreadCPUClock.current() }), let start = clock.time
        else {
            return nil
        }
        return MeteredPool(pool: pool, clock: clock, start: start)
    }

    /// The CPU the pool's thread has used since ``make()``, or nil once the thread has ended.
    package var cpuUsed: Duration? { clock.time.map { $0 - start } }
}
