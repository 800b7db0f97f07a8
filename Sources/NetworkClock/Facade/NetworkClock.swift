import ClockCore
import NetClockPlatform
import SNTP
import TimeValues

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
    public var restoreResult: Result<RestoredAnchor, AnchorStoreError>? { files.restoreResult }

    private let engine: TimeSyncEngine
    /// The monotonic time base anchors and syncs are measured on.
    let monotonic: any MonotonicClock
    /// The system clock the offsets are measured against.
    let wallClock: any WallClock
    /// The anchor, floor and NTS cookie files beside the anchor.
    let files: ClockStateFiles
    let broadcaster: EventBroadcaster
    /// The loop behind ``start()``.
    let refresh: BackgroundRefresh
    /// Writes anchors that ``ingest(serverTime:requestSent:responseReceived:resolution:server:)``
    /// accepted, off the caller's thread; nil without a store.
    var persister: AnchorPersister? { files.persister }

    /// Creates a clock and restores its anchor from the store, if one is configured and valid for
    /// this boot (see ``restoreResult``). Nothing is sent until ``sync()`` or ``start()``.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(
            configuration: configuration, hardware: .system, nonces: SystemNonceSource(),
            refreshClock: ContinuousClock())
    }

    /// Creates a clock on `hardware`'s clocks with a nonce source and a refresh clock.
    ///
    /// `refreshClock` is what the background refresh (``start()``) sleeps on between syncs and
    /// after failures: `ContinuousClock` by default (on Linux it reads `CLOCK_BOOTTIME`, so the
    /// schedule counts time spent suspended), a manual clock in tests. The restore reads one small
    /// file (no `fsync`); with NTS servers and a store, the CA file or bundle is also hashed once
    /// to bind the NTS cookie file to it (``NTSCookieFile/Binding``).
    package init(
        configuration: Configuration,
        hardware: ClockHardware,
        nonces: some NonceSource,
        refreshClock: some Clock<Duration>
    ) {
        let (monotonic, wall) = (hardware.exchange, hardware.wall)
        self.configuration = configuration
        self.monotonic = monotonic
        self.wallClock = wall
        let clock = AnchoredClock(hardware: hardware, policy: configuration.clock)
        self.clock = clock
        // Certificates are checked against the clock's own time once it is authenticated.
        self.engine = TimeSyncEngine(
            configuration: configuration, monotonic: monotonic, wall: wall, nonces: nonces,
            trustedTime: { [clock] in clock.now() })
        let broadcaster = EventBroadcaster()
        self.broadcaster = broadcaster
        clock.observeIdentityChanges { change in
            if case .otherBoot = change { broadcaster.emit(.anchorDropped(reason: change.description)) }
        }
        self.files = ClockStateFiles(
            store: configuration.store, clock: clock, usesNTS: configuration.syncPolicy.usesNTS,
            trustRoots: configuration.trustRoots
        ) { broadcaster.emit(.storeFailed($0)) }
        self.refresh = BackgroundRefresh(sleeper: refreshClock, policy: configuration.refresh)
    }

    deinit {
        refresh.stop()
        broadcaster.finish()
    }

    // MARK: Syncing

    /// Syncs once: NTP, then HTTP if NTP gave nothing. The result is intersected with the current
    /// anchor aged to the same instant, so the bound only tightens; when the two disagree (no
    /// overlap) the result replaces the anchor and ``ClockEvent/anchorDiscontinuity(by:)`` is
    /// emitted, unless the anchor is authenticated and the result is not: unauthenticated time never
    /// moves authenticated time. A changed anchor is then persisted. The report's top-level time,
    /// bound and offset are the clock's trusted time after the sync; each source keeps its own
    /// measurement.
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
        // Time before the round is over: provisional answers, which the final one replaces.
        let allowsDowngrade = configuration.allowsDowngrade
        let need = configuration.refresh.maximumBound
        // A sync with a need ends at the first replies that meet it: three of four addresses
        // outvote as many falsetickers as four (FleetSimulation.md).
        engine.reservesAddresses = need != nil
        let provisionalSync = clock.beginProvisionalAnswers()
        engine.onProvisional = { [clock, broadcaster] provisional in
            // What the final answer would refuse is no provisional answer either.
            guard allowsDowngrade || !provisional.isDowngraded else { return false }
            if clock.offerProvisional(provisional.anchor, sync: provisionalSync).replacedAnchor,
                let estimate = clock.now()
            {
                broadcaster.emit(.provisional(estimate))
            }
            // A clock with a need ends the sync once its time is within half of it: the schedule
            // keeps the other half for the bound to grow into (FleetSimulation.md).
            guard let need else { return false }
            return provisional.errorBound <= need / 2
        }
        let sessions = engine.ntp.ntsSessions
        if let failure = await files.takeNTSAssociations(into: sessions) {
            broadcaster.emit(.restoreFailed(failure))
        }
        // The leap-second table, read at most once a sync: before it when smearing servers need it.
        var leapTable: Result<LeapSecondTable, SyncReport.LeapTableNote>?
        do throws(SyncError) {
            // What is known of leap seconds, for mapping smearing servers onto stepping time.
            var smear = SmearKnowledge(anchor: clock.anchor?.leap)
            if let path = configuration.leapSecondTable, !configuration.smearingServers.isEmpty {
                let read = SyncReport.readLeapTable(at: path)
                leapTable = read
                smear.table = try? read.get()
            }
            report = try await engine.sync(floor: files.floorValue, smear: smear)
            if let failure = await files.keepNTSAssociations(from: sessions) {
                broadcaster.emit(.storeFailed(failure))
            }
            if report.isDowngraded && !configuration.allowsDowngrade {
                throw SyncError.unauthenticatedOnly(report)
            }
        } catch {
            clock.withdrawProvisional()
            if let failure = await files.keepNTSAssociations(from: sessions) {
                broadcaster.emit(.storeFailed(failure))
            }
            for server in error.servers { emitStatus(of: server) }
            broadcaster.emit(.syncFailed(error))
            throw error
        }
        if let path = configuration.leapSecondTable {
            report.applyLeapTable(leapTable ?? SyncReport.readLeapTable(at: path), from: path)
        }
        let frequencyBefore = clock.frequency()
        let update = clock.offer(report.anchor)
        // The floor rises only by what this sync's own authenticated evidence proves.
        let raisesFloor = report.isAuthenticated && update != .refused
        let evidence = report
        report.settle(on: clock, update: update, reading: readSystemClock())
        let replaced = update.replacedAnchor
        for server in report.servers { emitStatus(of: server) }
        if case .discontinuous(let step) = update { broadcaster.emit(.anchorDiscontinuity(by: step)) }
        if let reset = clock.frequencyReset(since: frequencyBefore) {
            broadcaster.emit(.frequencyReset(reset))
        }
        // Saved whenever the clock learnt from the result: a kept anchor's frequency history grew too.
        if update != .refused && update != .keptAuthenticated, let failure = await files.saveAnchor(of: clock)
        {
            broadcaster.emit(.storeFailed(failure))
        }
        if raisesFloor { await raiseFloor(by: evidence) }
        broadcaster.emit(.synced(report, anchorReplaced: replaced))
        return report
    }

    /// Raises the time floor to what the authenticated `report` proves (its earliest time, and the
    /// newest `notBefore` of the certificates it rests on), and keeps it beside the anchor.
    private func raiseFloor(by report: SyncReport) async {
        // NTS servers that took part, and the HTTPS URL selected (its survivors were not combined).
        let chains = report.servers.filter { $0.kind == .nts ? $0.tookPart : $0.status == .selected }
            .compactMap(\.certificateChain.first)
        let failure = await files.raiseFloor(
            byAuthenticated: report.trueTime - report.errorBound,
            certificateNotBefore: chains.map(\.notBefore).max())
        if let failure { broadcaster.emit(.storeFailed(failure)) }
    }

    func emit(_ event: ClockEvent) {
        broadcaster.emit(event)
    }

    /// Emits an NTP or NTS server's fate (the events speak of NTP's statuses only).
    private func emitStatus(of server: SyncReport.Server) {
        guard server.ntp != nil, let event = ClockEvent.status(of: server) else { return }
        broadcaster.emit(event)
    }
}
