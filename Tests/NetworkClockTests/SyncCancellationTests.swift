import LoopbackServers
import NetClockPlatform
import SNTP
import NetClockTestSupport
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

/// Cancelling the task that awaits a sync against servers that never answer ends it at once with
/// ``SyncError/cancelled``, and gives the pool's threads back within one poll slice, long before the
/// sockets' own 5 s timeouts.
///
/// Bound: the waiter is resumed by the cancellation handler itself, so the promise is 100 ms plus
/// one poll slice (50 ms); a further 100 ms of slack covers scheduling on a loaded two-core machine
/// (other suites run in parallel). Measured here: well under 10 ms.
@Suite(.serialized, .wallClockReference)
struct SyncCancellationTests {
    static let bound = Duration.milliseconds(100) + CancellableWait.slice + .milliseconds(100)
    static let trials = 10

    static func silentServers(_ count: Int) throws -> [FakeNTPServer] {
        try (0..<count).map { _ in
            var configuration = FakeNTPServer.Configuration()
            configuration.behaviour = .noReply
            return try FakeNTPServer(configuration: configuration)
        }
    }

    /// Slow bursts: every request waits 5 s for a reply that never comes.
    static let slowQuery = QueryOptions(samples: 4, interval: .milliseconds(10), timeout: .seconds(5))

    static func policy(_ servers: [FakeNTPServer]) -> SyncPolicy {
        SyncPolicy(
            servers: servers.map { ServerName(host: $0.host, port: $0.port) }, query: slowQuery)
    }

    /// Starts `sync` in a task, waits until every server has received a request (the bursts are
    /// blocked in their receive waits), cancels, and returns the time to the task's result and
    /// its error.
    static func cancelMidway(
        _ servers: [FakeNTPServer], _ sync: @escaping @Sendable () async throws(SyncError) -> SyncReport
    ) async throws -> (latency: Duration, error: SyncError?) {
        let before = servers.map(\.requests.count)
        let task = Task { () async throws(SyncError) -> SyncReport in try await sync() }
        let sent = await eventually {
            zip(servers, before).allSatisfy { $0.requests.count > $1 }
        }
        try #require(sent, "the bursts never started")
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        task.cancel()
        let result = await task.result
        let latency = clock.now - cancelledAt
        switch result {
        case .success: return (latency, nil)
        case .failure(let error): return (latency, error as? SyncError)
        }
    }

    static func check(_ latencies: [Duration], _ what: String) {
        let sorted = latencies.sorted()
        let summary =
            "\(what): cancel latency over \(sorted.count) trials: median \(sorted[sorted.count / 2].formattedSeconds), "
            + "max \(sorted.last?.formattedSeconds ?? "-")"
        print(summary)
        #expect(sorted.allSatisfy { $0 < bound }, "\(summary); bound \(bound.formattedSeconds)")
    }

    @Test func cancellingAnNTPSyncReturnsAtOnceAndFreesItsThreads() async throws {
        let servers = try Self.silentServers(3)
        defer { servers.forEach { $0.stop() } }
        let pool = BlockingPool(maximumThreads: 16)
        var engine = NTPSyncEngine(policy: Self.policy(servers))
        engine.pool = pool
        var latencies: [Duration] = []
        for _ in 0..<Self.trials {
            // A fresh registry each time, so etiquette spacing never delays the next burst.
            engine.registry = SourceRegistry()
            let (latency, error) = try await Self.cancelMidway(servers) {
                [engine] () async throws(SyncError) in
                try await engine.sync()
            }
            #expect(error == .cancelled)
            latencies.append(latency)
            // The bursts stop at their next poll slice: no pool thread stays blocked until the
            // sockets' 5 s timeouts.
            let released = await eventually(within: Self.bound) {
                let load = pool.statistics
                return load.threads == load.idle && load.queued == 0
            }
            #expect(released, "busy pool threads after cancelling: \(pool.statistics)")
        }
        Self.check(latencies, "NTPSyncEngine.sync")
    }

    @Test func cancellingATimeSyncEngineSyncReturnsAtOnceWithoutFallingBack() async throws {
        let servers = try Self.silentServers(2)
        defer { servers.forEach { $0.stop() } }
        var latencies: [Duration] = []
        for _ in 0..<Self.trials {
            let engine = TimeSyncEngine(ntp: NTPSyncEngine(policy: Self.policy(servers)))
            let (latency, error) = try await Self.cancelMidway(servers) { () async throws(SyncError) in
                try await engine.sync()
            }
            #expect(error == .cancelled)
            latencies.append(latency)
        }
        Self.check(latencies, "TimeSyncEngine.sync")
    }

    @Test func cancellingANetworkClockSyncReturnsAtOnceAndLeavesTheClockUnset() async throws {
        let servers = try Self.silentServers(2)
        defer { servers.forEach { $0.stop() } }
        var latencies: [Duration] = []
        for _ in 0..<Self.trials {
            let clock = NetworkClock(
                configuration: NetworkClock.Configuration(
                    servers: servers.map { ServerName(host: $0.host, port: $0.port) }, query: Self.slowQuery))
            let (latency, error) = try await Self.cancelMidway(servers) { () async throws(SyncError) in
                try await clock.sync()
            }
            #expect(error == .cancelled)
            #expect(clock.now() == nil)
            latencies.append(latency)
        }
        Self.check(latencies, "NetworkClock.sync")
    }

    @Test func aSyncStartedInACancelledTaskSendsNothing() async throws {
        let servers = try Self.silentServers(1)
        defer { servers.forEach { $0.stop() } }
        let engine = NTPSyncEngine(policy: Self.policy(servers))
        let task = Task { () async throws(SyncError) -> SyncReport in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await engine.sync()
        }
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("a cancelled sync succeeded")
            return
        }
        #expect(error as? SyncError == .cancelled)
        #expect(servers[0].requests.isEmpty)
    }
}
