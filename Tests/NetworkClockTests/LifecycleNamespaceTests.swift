#if os(Linux)
    import LoopbackServers
    import NetClockPlatform
    import NetClockTestSupport
    import SNTP
    import Testing
    import TimeValues
    import TimeDoubles

    @testable import NetworkClock

    /// A real rtnetlink event: two running clocks whose lifecycle monitors were started on a thread
    /// inside a network namespace this test creates, and an address added to that namespace's `lo`.
    /// The kernel announces it to the monitors (real time: the netlink message, then the monitor's
    /// 50 ms of quiet that ends a burst); the schedules they move are on manual clocks. The host's
    /// interfaces are never touched, and the namespace is deleted by its name. Without root or
    /// iproute2 the test skips with the reason; with `NETCLOCK_REQUIRE_PEERS=1` it fails instead.
    @Suite(
        .serialized,
        .enabled(
            if: NetworkNamespace.unavailableReason == nil || TestExecutables.peersRequired,
            Comment(
                rawValue: "\(NetworkNamespace.unavailableReason ?? "namespaces available"): skipped; "
                    + "with NETCLOCK_REQUIRE_PEERS=1 this fails")))
    struct LifecycleNamespaceTests {
        typealias EventLog = ClockEventLog

        static let policy = NetworkClock.RefreshPolicy(
            interval: .seconds(1024), jitter: 0.25, minimumInterval: .seconds(1),
            initialBackoff: .seconds(64),
            maximumBackoff: .seconds(3600))

        static func clock(_ server: FakeNTPServer, on manual: ManualClock) -> NetworkClock {
            NetworkClock(
                configuration: NetworkClock.Configuration(
                    servers: [ServerName(host: server.host, port: server.port)],
                    query: QueryOptions(samples: 1, interval: .zero, timeout: .milliseconds(100)),
                    refresh: Self.policy),
                hardware: .system, nonces: SystemNonceSource(), refreshClock: manual)
        }

        /// A clock backing off after a failed sync retries within 2–6 s of the change (not the
        /// 32–64 s of its backoff), and says so; a healthy clock hears the change and keeps its
        /// schedule.
        @Test func anAddressAddedInTheNamespaceRetriesOnlyTheBackingOffClockSoon() async throws {
            if let reason = NetworkNamespace.unavailableReason {
                Issue.record("NETCLOCK_REQUIRE_PEERS=1 and \(reason)")
                return
            }
            let namespace = try NetworkNamespace()
            defer { namespace.delete() }
            var silent = FakeNTPServer.Configuration()
            silent.nextBehaviours = Array(repeating: .noReply, count: 8)
            let failingServer = try FakeNTPServer(configuration: silent)
            defer { failingServer.stop() }
            let healthyServer = try FakeNTPServer(configuration: .init())
            defer { healthyServer.stop() }
            let (failingManual, healthyManual) = (ManualClock(), ManualClock())
            let failing = Self.clock(failingServer, on: failingManual)
            let healthy = Self.clock(healthyServer, on: healthyManual)
            _ = try await healthy.sync()
            let (failingLog, healthyLog) = (EventLog(failing), EventLog(healthy))
            try namespace.onThreadInside {
                failing.start()
                healthy.start()
            }
            defer {
                failing.stop()
                healthy.stop()
            }
            #expect(failing.refresh.lifecycleMonitor?.unavailable == [])
            // The failing clock's first sync fails at once; it backs off 64 s × [0.5, 1].
            #expect(await eventually { failingLog.failures == 1 && failingManual.sleeperCount == 1 })
            #expect(await eventually { healthyManual.sleeperCount == 1 })
            let backoff = try #require(Self.pendingDelay(on: failingManual))
            #expect(backoff >= .seconds(32) && backoff <= .seconds(64), "\(backoff)")
            let healthyPending = healthyManual.pendingDeadlines

            try namespace.ip(["addr", "add", "10.99.0.1/32", "dev", "lo"])
            #expect(await eventually { failingLog.networkChanges == 1 && healthyLog.networkChanges == 1 })
            #expect(await eventually { (Self.pendingDelay(on: failingManual) ?? backoff) < backoff })
            let retry = try #require(Self.pendingDelay(on: failingManual))
            #expect(retry >= .seconds(2) && retry <= .seconds(6), "\(retry)")
            #expect(await eventually { failingLog.backoffs.last?.delay == retry })
            #expect(failingLog.backoffs.last?.failures == 1)
            // One address, one burst: one event (the address and its local route count once).
            #expect(failingLog.networkChanges == 1, "\(failingLog.all)")
            // The healthy clock keeps its schedule.
            #expect(healthyManual.pendingDeadlines == healthyPending)
            #expect(healthyLog.backoffs.isEmpty && healthyServer.requestCount == 1)

            // The retry is a request, when the manual clock reaches it.
            #expect(failingServer.requestCount == 1)
            failingManual.advance(by: retry)
            #expect(await eventually { failingLog.failures == 2 && failingServer.requestCount == 2 })
        }

        static func pendingDelay(on manual: ManualClock) -> Duration? {
            manual.pendingDeadlines.first.map { $0.offset - manual.now.offset }
        }
    }
#endif
