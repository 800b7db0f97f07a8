import LoopbackServers
import NetClockPlatform
import SNTP
import NetClockTestSupport
import Testing
import TimeValues

@testable import NetworkClock

/// 200 syncs against servers that never answer — 800 bursts, which the old thread-per-burst code ran
/// on 800 threads — run all at once (was four batches of 50 one after another: 200 at once press
/// the pool harder), a third of them cancelled midway. The process's
/// thread count (`Threads:` in /proc/self/status) must stay within the pool's cap plus a fixed
/// allowance, and come back down once the pool's idle threads end.
///
/// Threads of the shared pool (used by suites running in parallel with this one) are subtracted
/// from every sample. Allowance: the cooperative pool's threads (one per core) and the loopback
/// servers of parallel suites. Run alone or with `--no-parallel` the observed growth is the cap
/// plus one or two.
@Suite(.serialized)
struct BoundedThreadsTests {
    static let cap = 8
    static let allowance = 16

    /// The process's threads not belonging to the shared pool.
    static func threadsBesidesSharedPool() -> Int {
        (ProcessThreads.count() ?? 0) - BlockingPool.shared.statistics.threads
    }

    /// Samples ``threadsBesidesSharedPool()`` every 2 ms until stopped; keeps the highest.
    final class Sampler: Sendable {
        private let task: Task<Int, Never>

        init() {
            task = Task.detached {
                var peak = BoundedThreadsTests.threadsBesidesSharedPool()
                while !Task.isCancelled {
                    peak = max(peak, BoundedThreadsTests.threadsBesidesSharedPool())
                    try? await Task.sleep(for: .milliseconds(2))
                }
                return peak
            }
        }

        func stop() async -> Int {
            task.cancel()
            return await task.value
        }
    }

    @Test func twoHundredSyncsAgainstSilentServersStayWithinThePoolCap() async throws {
        let baselineOrNil = ProcessThreads.count()
        let baseline = try #require(baselineOrNil, "no /proc/self/status")
        let servers = try SyncCancellationTests.silentServers(4)
        defer { servers.forEach { $0.stop() } }
        let pool = BlockingPool(maximumThreads: Self.cap, idleTimeout: .milliseconds(300))
        let policy = SyncPolicy(
            servers: servers.map { ServerName(host: $0.host, port: $0.port) },
            query: QueryOptions(samples: 2, interval: .milliseconds(10), timeout: .milliseconds(100)),
            deadline: .milliseconds(400))
        // Warm up: the timer thread and the resolver's first use are not the pool's doing. Its
        // bursts start at once, so a 100 ms deadline is enough for that.
        var warmUpPolicy = policy
        warmUpPolicy.deadline = .milliseconds(100)
        var warmUp = NTPSyncEngine(policy: warmUpPolicy)
        warmUp.pool = pool
        _ = try? await warmUp.sync()
        let warm = Self.threadsBesidesSharedPool()
        let sampler = Sampler()

        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<200 {
                group.addTask {
                    var engine = NTPSyncEngine(policy: policy)
                    engine.pool = pool
                    let sync = Task { () async throws(SyncError) -> SyncReport in try await engine.sync() }
                    // Cancelled 20, 30, 40 or 50 ms in, as the four batches were.
                    if index % 3 == 0 {
                        try? await Task.sleep(for: .milliseconds(20 + index / 50 * 10))
                        sync.cancel()
                    }
                    switch await sync.result {
                    case .success: return "synced"
                    case .failure(let error as SyncError) where error == .cancelled: return "cancelled"
                    case .failure: return "failed"
                    }
                }
            }
            var counts: [String: Int] = [:]
            for await outcome in group { counts[outcome, default: 0] += 1 }
            return counts
        }
        let peak = await sampler.stop()
        let load = pool.statistics
        print(
            "BoundedThreads (process threads besides the shared pool): baseline \(baseline), warm \(warm), "
                + "peak during 200 syncs \(peak), "
                + "pool peak \(load.peakThreads), outcomes \(outcomes)")

        #expect(outcomes["synced", default: 0] == 0)
        #expect(outcomes["cancelled", default: 0] + outcomes["failed", default: 0] == 200)
        #expect(outcomes["cancelled", default: 0] >= 1, "\(outcomes)")
        #expect(load.peakThreads == Self.cap, "the pool grew to its cap and no further")
        #expect(
            peak <= warm + Self.cap + Self.allowance,
            "peak \(peak) threads besides the shared pool's; warm \(warm), cap \(Self.cap)")

        // Idle pool threads end after 300 ms; the process returns to (near) its baseline.
        let drained = await eventually(within: .seconds(5)) { pool.statistics.threads == 0 }
        #expect(drained, "pool threads still alive: \(pool.statistics)")
        var after = Self.threadsBesidesSharedPool()
        _ = await eventually(within: .seconds(5)) {
            after = Self.threadsBesidesSharedPool()
            return after <= warm + 2
        }
        print("BoundedThreads: after draining \(after) (warm \(warm))")
        #expect(after <= warm + Self.allowance, "after \(after) threads; warm \(warm)")
    }
}
