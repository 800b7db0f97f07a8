import Dispatch
import NetClockPlatform
import Synchronization
import NetClockTestSupport
import Testing

/// The bounded pool: results come back, jobs start in FIFO order, the thread cap holds, idle
/// threads end, and cancellation of queued and running jobs resumes the waiter at once.
@Suite struct BlockingPoolTests {
    /// Occupies the pool's only thread until `release` is signalled.
    static func occupy(_ pool: BlockingPool, release: DispatchSemaphore, started: DispatchSemaphore) {
        pool.submit(
            flag: CancellationFlag(),
            body: {
                started.signal()
                release.wait()
            })
    }

    @Test func resultsAreDelivered() async throws {
        let pool = BlockingPool(maximumThreads: 4)
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for value in 0..<20 { group.addTask { try await pool.run { _ in value * value } } }
            var values: [Int] = []
            for try await value in group { values.append(value) }
            return values.sorted()
        }
        #expect(values == (0..<20).map { $0 * $0 })
        #expect(pool.statistics.peakThreads <= 4)
    }

    @Test func queuedJobsStartInSubmissionOrder() async throws {
        let pool = BlockingPool(maximumThreads: 1)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        Self.occupy(pool, release: release, started: started)
        started.wait()
        let order = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<50 {
            pool.submit(
                flag: CancellationFlag(),
                body: {
                    order.withLock { $0.append(index) }
                    if index == 49 { done.signal() }
                })
        }
        #expect(pool.statistics.queued == 50)
        release.signal()
        let finished = try await BlockingPool(maximumThreads: 1).run { _ in done.wait(timeout: .now() + 5) }
        #expect(finished == .success)
        #expect(order.withLock { $0 } == Array(0..<50))
        #expect(pool.statistics.peakThreads == 1)
    }

    @Test(arguments: [1, 3, 8])
    func theThreadCapHolds(cap: Int) async throws {
        let pool = BlockingPool(maximumThreads: cap)
        /// Jobs running now and the most ever running at once.
        final class Gauge: Sendable {
            let counts = Mutex((running: 0, peak: 0))
        }
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<(cap * 4) {
                group.addTask {
                    try await pool.run { _ in
                        gauge.counts.withLock {
                            $0.running += 1; $0.peak = max($0.peak, $0.running)
                        }
                        Syscalls.sleep(.milliseconds(20))
                        gauge.counts.withLock { $0.running -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(gauge.counts.withLock { $0.peak } == cap, "jobs running at once")
        #expect(pool.statistics.peakThreads == cap, "threads started")
    }

    @Test func idleThreadsAreReusedThenEnd() async throws {
        let pool = BlockingPool(maximumThreads: 4, idleTimeout: .milliseconds(100))
        for _ in 0..<10 { _ = try await pool.run { _ in 1 } }
        #expect(pool.statistics.peakThreads == 1, "one job at a time needs one thread, reused")
        #expect(await eventually { pool.statistics.threads == 0 }, "\(pool.statistics)")
    }

    @Test func cancellingAQueuedJobRemovesItAndResumesAtOnce() async throws {
        let pool = BlockingPool(maximumThreads: 1)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        Self.occupy(pool, release: release, started: started)
        started.wait()
        let ran = Atomic(false)
        let task = Task { try await pool.run { _ in ran.store(true, ordering: .relaxed) } }
        #expect(await eventually { pool.statistics.queued == 1 })
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        task.cancel()
        let result = await task.result
        let latency = clock.now - cancelledAt
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(pool.statistics.queued == 0, "the queued job was removed")
        release.signal()
        _ = try await pool.run { _ in 0 }  // everything before it has run or been removed
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun, "a cancelled queued job never runs")
        // Resuming is immediate; 100 ms allows for scheduling on a loaded two-core machine.
        #expect(latency < .milliseconds(100), "\(latency)")
    }

    @Test func cancellingARunningJobSetsItsFlagAndResumesAtOnce() async throws {
        let pool = BlockingPool(maximumThreads: 2)
        let sawFlag = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let task = Task {
            try await pool.run { flag in
                running.signal()
                // Works in poll slices, as a burst does, for at most 10 s.
                if !CancellableWait.sleep(.seconds(10), isCancelled: { flag.isCancelled }) {
                    sawFlag.signal()
                }
                return 42
            }
        }
        let isRunning = await pool.runToEnd { running.wait(timeout: .now() + 5) }
        #expect(isRunning == .success)
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        task.cancel()
        let result = await task.result
        let latency = clock.now - cancelledAt
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(latency < .milliseconds(100), "\(latency)")
        let stopped = await pool.runToEnd { sawFlag.wait(timeout: .now() + 1) }
        #expect(stopped == .success, "the running job saw its flag and stopped")
    }

    @Test func aTaskCancelledBeforeSubmittingNeverRunsItsJob() async throws {
        let pool = BlockingPool(maximumThreads: 1)
        let ran = Atomic(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.run { _ in ran.store(true, ordering: .relaxed) }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        _ = try await pool.run { _ in 0 }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(pool.statistics.peakThreads == 1)
    }
}
