import Foundation
import HTTPTime
import Roughtime
import NetClockPlatform
import SNTP
import Synchronization
import TimeBase

/// A clock you can trust when the machine's clock is wrong: syncs with NTP servers (HTTP(S) when
/// UDP is blocked), anchors the result to the boot-time clock, and answers ``now()`` from the
/// anchor, so a user changing the system time changes nothing.
///
/// ```swift
/// let clock = NetworkClock(configuration: .init(servers: [ServerName(host: "time.example.com")],
///                                               store: try? AnchorStore()))
/// try await clock.sync()
/// if let now = clock.now() { print(now.time, "±", now.errorBound) }
/// clock.start()   // refresh in the background, jittered, with backoff on failure
/// ```
public final class NetworkClock: Sendable {
    /// The configuration the clock was created with.
    public let configuration: Configuration
    /// The anchored clock behind ``now()``.
    package let clock: AnchoredClock
    /// What became of the stored anchor at start-up (nil when no store is configured).
    public let restoreResult: Result<RestoredAnchor, AnchorStoreError>?

    private let engine: TimeSyncEngine
    /// The monotonic time base anchors and syncs are measured on.
    let monotonic: any MonotonicClock
    /// The system clock the offsets are measured against.
    let wallClock: any WallClock
    /// The clock the background refresh sleeps on (see ``start()``).
    private let refreshClock: any Clock<Duration>
    /// The least the true time was proven to be (``TimeFloor``): loaded from the store at start-up,
    /// raised by every authenticated sync, kept beside the anchor and not voided by a reboot.
    private let floor: Mutex<TimeFloor>
    private let broadcaster: EventBroadcaster
    /// What the NTS cookie file is bound to (nil without a store or NTS servers), or why no
    /// cookies can be kept.
    private let ntsBinding: Result<NTSCookieFile.Binding, AnchorStoreError>?
    /// Writes anchors that ``ingest(serverTime:requestSent:responseReceived:resolution:server:)``
    /// accepted, off the caller's thread; nil without a store.
    let persister: AnchorPersister?
    private let refresh = Mutex<(task: Task<Void, Never>?, schedule: RefreshSchedule)>(
        (nil, RefreshSchedule(policy: NetworkClock.RefreshPolicy())))

    /// Creates a clock and restores its anchor from the store, if one is configured and valid for
    /// this boot (see ``restoreResult``). Nothing is sent until ``sync()`` or ``start()``.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, monotonic: BootTimeClock(), wall: SystemWallClock())
    }

    /// Creates a clock with injected clocks, nonce source, refresh clock and kernel-discipline
    /// reader (tests simulate time with them; a nil `kernel` chooses as ``AnchoredClock`` does).
    ///
    /// `refreshClock` is what the background refresh (``start()``) sleeps on between syncs and
    /// after failures: `ContinuousClock` by default (on Linux it reads `CLOCK_BOOTTIME`, so the
    /// schedule counts time spent suspended), a manual clock in tests. The restore reads one small
    /// file (no `fsync`); with NTS servers and a store, the CA file or bundle is also hashed once
    /// to bind the NTS cookie file to it (``NTSCookieFile/Binding``).
    package init(
        configuration: Configuration,
        monotonic: some MonotonicClock,
        wall: some WallClock,
        nonces: some NonceSource = SystemNonceSource(),
        refreshClock: some Clock<Duration> = ContinuousClock(),
        kernel: KernelClockReader? = nil
    ) {
        self.configuration = configuration
        self.monotonic = monotonic
        self.wallClock = wall
        self.refreshClock = refreshClock
        let clock = AnchoredClock(
            monotonic: monotonic, wall: wall, policy: configuration.clock, kernel: kernel)
        self.clock = clock
        let client = SNTPClient(monotonic: monotonic, wall: wall, nonces: nonces)
        let ntp = NTPSyncEngine(policy: configuration.syncPolicy, client: client, registry: SourceRegistry())
        // NTS cookies kept beside the anchor are bound to this boot and to the trust roots'
        // contents as they are now, before any key exchange; the file is taken at each sync.
        if let store = configuration.store, configuration.syncPolicy.usesNTS {
            self.ntsBinding = NTSCookieFile.Binding.current(for: store, trust: configuration.trustRoots)
        } else {
            self.ntsBinding = nil
        }
        let http = HTTPTimeClient(
            configuration: configuration.httpConfiguration,
            trustRoots: configuration.trustRoots.tlsTrustRoots,
            monotonicClock: monotonic, wallClock: wall)
        var engine = TimeSyncEngine(
            ntp: ntp, httpURLs: configuration.httpURLs, http: http, deadline: configuration.deadline)
        // Certificates are checked against the clock's own time once it is authenticated.
        engine.trustedTime = { [clock] in clock.now() }
        if !configuration.roughtimeServers.isEmpty {
            var options = RoughtimeClient.Options()
            // Each exchange waits as long as an NTP request does, and sends its request once more
            // halfway through (a lost datagram costs half a timeout, not a whole one).
            let timeout = configuration.query.timeout
            options.timing = RoughtimeExchange.Timing(timeout: timeout, firstRetransmission: timeout / 2)
            options.frequencyTolerancePPM = configuration.clock.frequencyTolerancePPM
            options.addressFamily = configuration.addressFamily
            engine.roughtime = RoughtimeStage(
                servers: configuration.roughtimeServers, options: options,
                client: RoughtimeClient(monotonic: monotonic, wall: wall), pool: .shared)
        }
        self.engine = engine
        let broadcaster = EventBroadcaster()
        self.broadcaster = broadcaster
        self.persister = configuration.store.map { store in
            AnchorPersister(clock: clock, store: store) { broadcaster.emit(.storeFailed($0)) }
        }
        self.restoreResult = configuration.store.map { clock.restore(from: $0) }
        // A damaged floor file counts as no floor (the next authenticated sync rewrites it); a
        // refused one is reported with the sync's other state-file events.
        self.floor = Mutex(
            (try? configuration.store.map { try TimeFloor.load(from: $0.floorPath) }) ?? TimeFloor())
        refresh.withLock { $0.schedule = RefreshSchedule(policy: configuration.refresh) }
    }

    /// One background round: sync, then the delay before the next; nil once the clock is gone.
    private static func syncOnce(_ owner: WeakReference, using generator: inout SystemRandomNumberGenerator)
        async
        -> Duration?
    {
        guard let clock = owner.value else { return nil }
        let succeeded: Bool
        do {
            _ = try await clock.sync()
            succeeded = true
        } catch {
            succeeded = false
        }
        // Stopped while syncing: not a failure to back off from; the loop ends.
        if Task.isCancelled { return nil }
        let (next, failures) = clock.refresh.withLock { state in
            (
                state.schedule.nextDelay(afterSuccess: succeeded, using: &generator),
                state.schedule.consecutiveFailures
            )
        }
        if !succeeded { clock.broadcaster.emit(.backoff(delay: next, consecutiveFailures: failures)) }
        return next
    }

    deinit {
        refresh.withLock { $0.task?.cancel() }
        broadcaster.finish()
    }

    // MARK: Reading

    /// The time floor: the least the true time was proven to be by authenticated time (loaded
    /// from the store, raised by every authenticated sync); nil when none is known.
    public var timeFloor: UnixTime? { floor.withLock { $0.value } }

    /// The true time now with its error bound; nil until the first sync (or a restored anchor).
    /// Lock-free and allocation-free.
    @inline(__always)
    public func now() -> TimeEstimate? {
        clock.now()
    }

    /// What the clock knows about its oscillator's frequency now (for the CLI's JSON).
    package func frequency() -> FrequencyEstimate {
        clock.frequency()
    }

    /// The time left until a true-time deadline (negative once passed), from the anchor; nil until
    /// synchronised. Unaffected by wall-clock changes.
    public func timeRemaining(until deadline: UnixTime) -> Duration? {
        clock.now()?.timeRemaining(until: deadline)
    }

    /// Ticks on true-time boundaries every `interval` (whole seconds of true time by default):
    /// each tick comes when the anchored clock passes the next multiple of `interval`, whatever the
    /// wall clock says, so a countdown shown from it never drifts. Nothing is produced until the
    /// clock has an anchor. Sleeps on the boot-time clock, which wall-clock changes do not affect.
    ///
    /// ```swift
    /// for await tick in clock.ticks(every: .seconds(1)) {
    ///     print(tick.boundary, "remaining:", tick.estimate.timeRemaining(until: saleEnds))
    /// }
    /// ```
    public func ticks(every interval: Duration = .seconds(1)) -> some AsyncSequence<ClockTick, Never> {
        clock.ticks(every: interval)
    }

    /// A stream of everything that happens from now on: syncs, rejected sources, falsetickers,
    /// Kiss-o'-Death, backoff, store problems. Each call returns a new independent stream.
    public func events() -> AsyncStream<ClockEvent> {
        broadcaster.subscribe()
    }

    // MARK: Syncing

    /// Syncs once: NTP, then HTTP if NTP gave nothing. The result is intersected with the current
    /// anchor aged to the same instant, so the bound only tightens; when the two disagree (no
    /// overlap) the result replaces the anchor and ``ClockEvent/anchorDiscontinuity(by:)`` is
    /// emitted. A changed anchor is then persisted.
    /// - Throws: ``SyncError`` when no source gave a usable, agreeing time.
    @discardableResult
    public func sync() async throws(SyncError) -> SyncReport {
        try await sync(progress: nil)
    }

    /// Syncs as ``sync()`` does, telling `progress` about every request as it happens (the CLI's
    /// live status line); `progress` is called from the threads doing the work.
    package func sync(progress: SyncProgressObserver?) async throws(SyncError) -> SyncReport {
        var report: SyncReport
        var engine = self.engine
        engine.progress = progress
        await takeNTSAssociations()
        do throws(SyncError) {
            report = try await engine.sync(floor: floor.withLock { $0.value })
            await keepNTSAssociations()
            if report.isDowngraded && !configuration.allowsDowngrade {
                throw SyncError.unauthenticatedOnly(report)
            }
        } catch {
            await keepNTSAssociations()
            for source in error.sources { emitStatus(of: source) }
            broadcaster.emit(.syncFailed(error))
            throw error
        }
        if let table = configuration.leapSecondTable { report.applyLeapTable(at: table) }
        let frequencyBefore = clock.frequency()
        let update = clock.offer(report.anchor)
        report.anchorUpdate = update
        let replaced = update.replacedAnchor
        for source in report.sources { emitStatus(of: source) }
        if case .discontinuous(let step) = update { broadcaster.emit(.anchorDiscontinuity(by: step)) }
        if let reset = clock.frequencyReset(since: frequencyBefore) {
            broadcaster.emit(.frequencyReset(reset))
        }
        // Saved whenever the clock learnt from the result: a kept anchor's frequency history grew too.
        if update != .refused && update != .keptAuthenticated, let store = configuration.store {
            do {
                // On the blocking pool: the write fsyncs the file and its directory.
                try await clock.save(to: store)
            } catch {
                broadcaster.emit(.storeFailed(error))
            }
        }
        if report.isAuthenticated && update != .refused { await raiseFloor(by: report) }
        broadcaster.emit(.synced(report, anchorReplaced: replaced))
        return report
    }

    /// Raises the time floor to what the authenticated `report` proves (its earliest time, and the
    /// newest `notBefore` of the certificates it rests on), and keeps it beside the anchor.
    private func raiseFloor(by report: SyncReport) async {
        let chains =
            report.sources.filter { $0.status == .selected || $0.status == .survivor }
            .compactMap { $0.nts?.certificateChain.first }
            + report.httpSources.filter { $0.status == .selected }.compactMap(\.certificateChain.first)
        let raised = floor.withLock { floor in
            floor = floor.raised(
                byAuthenticated: report.trueTime - report.errorBound,
                certificateNotBefore: chains.map(\.notBefore).max())
            return floor
        }
        guard let store = configuration.store else { return }
        let path = store.floorPath
        let failure = await BlockingPool.shared.runToEnd { () -> AnchorStoreError? in
            do throws(AnchorStoreError) {
                try raised.save(to: path)
                return nil
            } catch {
                return error
            }
        }
        if let failure { broadcaster.emit(.storeFailed(failure)) }
    }

    /// Takes the NTS keys and cookies kept beside the anchor (by an earlier process, or by this
    /// clock's previous sync), when there is a store and NTS servers: the file is removed before
    /// any cookie is sent. A file that cannot be used (refused as unsafe, another boot, other
    /// trust roots, damaged) is reported as ``ClockEvent/restoreFailed(_:)`` and costs a key
    /// exchange; the sync goes on.
    private func takeNTSAssociations() async {
        guard let store = configuration.store, let ntsBinding else { return }
        let sessions = engine.ntp.ntsSessions
        let result = await BlockingPool.shared.runToEnd { () -> Result<Int, AnchorStoreError> in
            switch ntsBinding {
            case .success(let binding): return sessions.restore(from: store, binding: binding)
            case .failure(let error):
                // The file is not taken, but an unsafe one is still worth a word.
                return .failure(AnchorStore.unsafeFileError(at: store.ntsCookiePath) ?? error)
            }
        }
        if case .failure(let error) = result, error.code != .missing {
            broadcaster.emit(.restoreFailed(error))
        }
    }

    /// Hands the NTS keys and unused cookies over to the file beside the anchor, when there is a
    /// store and NTS servers; a failure is reported as ``ClockEvent/storeFailed(_:)``.
    private func keepNTSAssociations() async {
        guard let store = configuration.store, case .success(let binding)? = ntsBinding else { return }
        if let error = await engine.ntp.ntsSessions.save(to: store, binding: binding) {
            broadcaster.emit(.storeFailed(error))
        }
    }

    func emit(_ event: ClockEvent) {
        broadcaster.emit(event)
    }

    private func emitStatus(of source: SyncReport.NTPSource) {
        switch source.status {
        case .falseticker: broadcaster.emit(.falseticker(source))
        case .kissOfDeath:
            broadcaster.emit(
                .kissOfDeath(source, source.query?.kissCode ?? NTPPacket.KissCode(rawValue: "????")))
        case .rejected, .timeout, .refused, .error, .inconsistent: broadcaster.emit(.sourceRejected(source))
        default: break
        }
    }

    /// Starts syncing in the background: at once when there is no anchor (or only a restored one),
    /// then every ``RefreshPolicy/interval`` (jittered), backing off exponentially after failures.
    /// Calling it again while running does nothing.
    public func start() {
        if case .success(let restored) = restoreResult { broadcaster.emit(.restored(restored)) }
        if case .failure(let error) = restoreResult, error.code != .missing {
            broadcaster.emit(.restoreFailed(error))
        }
        refresh.withLock { state in
            guard state.task == nil else { return }
            let initialDelay = Self.initialDelay(for: clock.now(), policy: configuration.refresh)
            let owner = WeakReference(self)
            let sleeper = refreshClock
            state.task = Task {
                await Self.refreshLoop(owner, initialDelay: initialDelay, clock: sleeper)
            }
        }
    }

    /// Stops background syncing. A background sync in progress is cancelled: it ends within one
    /// poll slice (50 ms) and its successor never starts.
    public func stop() {
        refresh.withLock { state in
            state.task?.cancel()
            state.task = nil
        }
    }

    /// Whether background syncing is running.
    public var isRunning: Bool { refresh.withLock { $0.task != nil } }

    static func initialDelay(for estimate: TimeEstimate?, policy: NetworkClock.RefreshPolicy) -> Duration {
        guard let estimate, estimate.source != .restored else { return .zero }
        return max(.zero, policy.interval - estimate.age)
    }

    /// A reference that does not keep the clock alive, so an abandoned clock's loop ends.
    struct WeakReference: Sendable {
        weak var value: NetworkClock?
        init(_ value: NetworkClock) { self.value = value }
    }

    private static func refreshLoop(
        _ owner: WeakReference, initialDelay: Duration, clock: any Clock<Duration>
    ) async {
        var generator = SystemRandomNumberGenerator()
        var delay = initialDelay
        while !Task.isCancelled {
            if delay > .zero {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return
                }
            }
            // Hold the clock only while syncing, so an abandoned clock can be released.
            guard let next = await syncOnce(owner, using: &generator) else { return }
            delay = next
        }
    }
}
