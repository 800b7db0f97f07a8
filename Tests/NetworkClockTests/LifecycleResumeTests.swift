import TimeValues

#if os(Linux)
    import ClockCore
    import LoopbackServers
    import NetClockPlatform
    import NetClockTestSupport
    import SNTP
    import Synchronization
    import Testing
    import TimeBase
    import TimeDoubles

    @testable import NetworkClock

    /// A simulated resume through the running lifecycle monitor: the clocks the monitor reads are a
    /// ``SimulatedMachine``'s (boot time jumps against monotonic time when it suspends), and so are
    /// the clocks the ``NetworkClock`` and its fake server tell time by; the refresh sleeps on a
    /// ``ManualClock``. The monitor's thread is woken by hand (``LifecycleMonitor/check()``), as the
    /// kernel's wall-clock timer wakes it on a real resume.
    @Suite(.serialized) struct LifecycleResumeTests {
        typealias EventLog = ClockEventLog

        /// What the monitor reads of `machine`: its suspended time, and its wall clock against its
        /// monotonic clock (boot time less the suspended time).
        static func readings(of machine: SimulatedMachine) -> @Sendable () -> LifecycleReading {
            {
                let suspended = machine.baseReading.suspended
                let monotonic = machine.bootReading.sinceOrigin - suspended
                return LifecycleReading(
                    suspended: suspended, wallOffset: (machine.wallReading - machine.start) - monotonic)
            }
        }

        /// A running clock on `machine` that needs `need`, synced once against `server`, its loop
        /// asleep on `manual`.
        static func runningClock(
            need: Duration, server: FakeNTPServer, machine: SimulatedMachine, manual: ManualClock
        ) async throws -> (NetworkClock, EventLog) {
            var configuration = NetworkClock.Configuration(
                servers: [ServerName(host: server.host, port: server.port)],
                query: QueryOptions(samples: 1, interval: .zero, timeout: .seconds(2)))
            configuration.refresh = NetworkClock.RefreshPolicy(
                minimumInterval: .seconds(1), maximumBound: need)
            let clock = NetworkClock(
                configuration: configuration, monotonic: machine.clock, wall: machine.wallClock,
                refreshClock: manual, timeBase: machine.clock)
            _ = try await clock.sync()
            let log = EventLog(clock)
            clock.start(lifecycleReadings: readings(of: machine))
            let asleep = await eventually { manual.sleeperCount == 1 }
            try #require(asleep, "the refresh loop never went to sleep")
            try #require(clock.refresh.lifecycleMonitor?.unavailable == [])
            return (clock, log)
        }

        static func pendingDelay(on manual: ManualClock) -> Duration? {
            manual.pendingDeadlines.first.map { $0.offset - manual.now.offset }
        }

        /// Ten seconds asleep cost each clock's bound 1 s (the suspend's resolution) plus 100 ppm.
        /// The clock that needs 100 ms syncs at once; the one that needs 5 s is still within it and
        /// sends nothing, but its next sync comes before its bound, grown faster while asleep,
        /// reaches 5 s.
        @Test func aResumeSyncsTheClockWhoseBoundNowExceedsItsNeedOnly() async throws {
            let machine = SimulatedMachine()
            let strictServer = try FakeNTPServer(configuration: .init(), clock: machine.wallClock)
            defer { strictServer.stop() }
            let laxServer = try FakeNTPServer(configuration: .init(), clock: machine.wallClock)
            defer { laxServer.stop() }
            let (strictManual, laxManual) = (ManualClock(), ManualClock())
            let (strict, strictLog) = try await Self.runningClock(
                need: .milliseconds(100), server: strictServer, machine: machine, manual: strictManual)
            defer { strict.stop() }
            let (lax, laxLog) = try await Self.runningClock(
                need: .seconds(5), server: laxServer, machine: machine, manual: laxManual)
            defer { lax.stop() }
            // Both met their need after the first sync, their bounds growing 1 ms a second before the
            // frequency is measured: the loops sleep about 100 s and 5,000 s.
            let laxBefore = try #require(Self.pendingDelay(on: laxManual))
            #expect(try #require(Self.pendingDelay(on: strictManual)) > .seconds(60))
            #expect(laxBefore > .seconds(4_500), "\(laxBefore)")
            #expect(strictServer.requestCount == 1 && laxServer.requestCount == 1)

            machine.suspend(for: .seconds(10))
            strictManual.advance(by: .seconds(10))
            laxManual.advance(by: .seconds(10))
            let bound = try #require(strict.neededBound(after: .zero))
            #expect(bound > .seconds(1) && bound < .seconds(2), "\(bound)")
            strict.refresh.lifecycleMonitor?.check()
            lax.refresh.lifecycleMonitor?.check()

            #expect(await eventually { strictLog.resumes.count == 1 && laxLog.resumes.count == 1 })
            #expect(strictLog.resumes == [.seconds(10)] && laxLog.resumes == [.seconds(10)])
            #expect(strictLog.steps.isEmpty && laxLog.steps.isEmpty, "a resume taken for a step")
            // The strict clock synced at once, without its manual clock moving, and met its need.
            #expect(await eventually { strictLog.syncs == 1 && strictManual.sleeperCount == 1 })
            #expect(strictServer.requestCount == 2)
            #expect(try #require(strict.neededBound(after: .zero)) < .milliseconds(100))
            // The lax one did not; its next sync moved earlier, to before its bound reaches 5 s.
            let within = try #require(
                RefreshSchedule.timeWithin(.seconds(5), boundAfter: lax.neededBound(after:)))
            #expect(await eventually { (Self.pendingDelay(on: laxManual) ?? .zero) <= within })
            let laxAfter = try #require(Self.pendingDelay(on: laxManual))
            #expect(laxAfter < laxBefore - .seconds(10) && laxAfter > .zero, "\(laxBefore) → \(laxAfter)")
            #expect(laxServer.requestCount == 1 && laxLog.syncs == 0)
        }

        /// A wall-clock step is told apart from a resume (boot time did not move against monotonic
        /// time), is reported, and calls for no sync: the clock's time never followed the wall clock.
        @Test func aWallClockStepIsReportedAndSyncsNothing() async throws {
            let machine = SimulatedMachine()
            let server = try FakeNTPServer(configuration: .init(), clock: machine.wallClock)
            defer { server.stop() }
            let manual = ManualClock()
            let (clock, log) = try await Self.runningClock(
                need: .milliseconds(100), server: server, machine: machine, manual: manual)
            defer { clock.stop() }
            let pending = manual.pendingDeadlines
            machine.stepWallClock(by: .seconds(-90))
            clock.refresh.lifecycleMonitor?.check()
            #expect(await eventually { log.steps.count == 1 })
            #expect(log.steps == [.seconds(-90)] && log.resumes.isEmpty)
            #expect(manual.pendingDeadlines == pending && server.requestCount == 1)
            #expect(
                try #require(clock.now()).contains(machine.trueTime),
                "the clock's time followed the wall clock")
        }
    }
#endif
