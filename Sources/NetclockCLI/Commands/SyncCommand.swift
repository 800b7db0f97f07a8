import NetworkClock

/// `netclock sync`: query like `query`, then persist the result as an anchor for `now`, through
/// a ``NetworkClock`` with an ``AnchorStore``, as an app keeps its clock.
///
/// The clock restores the anchor already on file (same boot) first, so a worse new result never
/// replaces a better stored one, an unauthenticated one never replaces an authenticated one, and
/// the drift history keeps growing across runs. With `--nts`, the NTS keys and unused cookies are
/// kept beside the anchor (`<state>.nts`): the next `sync` of this boot takes the file (it is
/// removed before any of its cookies is sent, so two runs never send the same cookie) and spends
/// them instead of running a new key exchange.
///
/// The state files and the lock file beside them (`<state>.lock`, which serialises the
/// read-merge-write of concurrent runs) are checked before any network traffic. One that is not
/// private to this user (a FIFO, a symbolic link, a directory, another user's file, a file others may read or
/// write, a directory others may write) ends the command at once with status 1: `sync` exists to
/// keep state, and it could not keep it there safely. A cookie file that is private but unusable
/// (another boot, other trust roots, an old format, damage) only costs a key exchange.
struct SyncCommand {
    var options: QueryCommandOptions
    var console: Console

    func run() async -> ExitStatus {
        await run(settingSystemClock: false)
    }

    /// The sync; `set` (`settingSystemClock`) then corrects the system clock after a sync that
    /// succeeded and saved its anchor (``SetCommand``), adds its `set` object to the JSON and its
    /// line to the text, and exits 1 when the correction was refused.
    func run(settingSystemClock: Bool) async -> ExitStatus {
        let store: AnchorStore
        switch AnchorFileLocation.store(for: options) {
        case .success(let found): store = found
        case .failure(let error):
            console.err("netclock: cannot store the anchor: \(error.reason)")
            return .noTime
        }
        if let error = store.unsafeFileError() ?? AnchorStore.unsafeFileError(at: store.lockPath)
            ?? (options.nts ? AnchorStore.unsafeFileError(at: store.ntsCookiePath) : nil)
        {
            return refuse(error)
        }
        guard let query = TimeQuery.make(options: options, store: store, console: console) else {
            return .noTime
        }
        if case .failure(let error)? = query.clock.restoreResult, error.isUnsafeFile { return refuse(error) }
        if let maxBound = options.maxBound, let bound = query.clock.neededBound(after: .zero),
            bound <= maxBound
        {
            return skip(query.clock, store: store, settingSystemClock: settingSystemClock)
        }
        let events = query.clock.events()
        let outcome = await query.run(status: options.json ? nil : console.status)
        let (storeFailure, frequencyReset) = await reportStateEvents(events, store: store)
        let report: SyncReport
        switch outcome {
        case .success(let result): report = result
        case .failure(let error):
            let proof = query.keepProof(error.roughtime, console: console)
            // `set` still decides from a held authenticated anchor when no source gave time.
            let held = query.clock.systemClockOffset().map(\.isAuthenticated) ?? false
            let setting =
                settingSystemClock && held && error.code != .cancelled
                ? SetCommand(options: options).run(clock: query.clock) : nil
            if options.json {
                var json = SyncFailureJSON(error, malfeasanceReport: proof)
                json.set = setting.map(SetJSON.init)
                console.out(JSONOutput.line(json))
            }
            console.err("netclock: \(error.description)")
            guard let setting else { return .noTime }
            if !options.json {
                console.out(
                    ReportText.servers(error.servers, roughtime: error.roughtime).joined(separator: "\n"))
                console.out("no source gave time: the held authenticated anchor decides")
                console.out(SetCommand.text(setting))
            }
            return finish(setting)
        }
        let update = report.anchorUpdate
        let proof = query.keepProof(report.roughtime, console: console)
        let frequency = query.clock.frequency()
        if let storeFailure {
            if options.json { console.out(JSONOutput.line(SyncReportJSON(report))) }
            console.err("netclock: synced, but the anchor could not be saved: \(storeFailure.description)")
            return .noTime
        }
        let setting = settingSystemClock ? SetCommand(options: options).run(clock: query.clock) : nil
        if options.json {
            var json = SyncReportJSON(
                report, state: store.path, anchorReplaced: update?.replacedAnchor ?? false,
                anchorUpdate: update,
                malfeasanceReport: proof, frequency: frequency, frequencyReset: frequencyReset)
            json.set = setting.map(SetJSON.init)
            console.out(JSONOutput.line(json))
        } else {
            console.out(ReportText.report(report))
            console.out(ReportText.frequency(frequency, reset: frequencyReset))
            let kept: String
            switch update {
            case .keptAuthenticated?:
                kept = "kept the stored authenticated anchor (unauthenticated time never replaces it)"
            case let update? where !update.replacedAnchor:
                kept = "kept the stored anchor (tighter bound than this sync); saved"
            default:
                kept = "saved"
            }
            console.out("\(kept) to \(store.path)")
            if let setting { console.out(SetCommand.text(setting)) }
        }
        if settingSystemClock && setting == nil {
            console.err("netclock: the system clock was not corrected: the clock holds no trusted time")
            return .noTime
        }
        return setting.map(finish) ?? .success
    }

    /// `--max-bound`: the stored anchor is within it, so nothing is sent; `set` corrects the system
    /// clock from it.
    private func skip(_ clock: NetworkClock, store: AnchorStore, settingSystemClock: Bool) -> ExitStatus {
        let setting = settingSystemClock ? SetCommand(options: options).run(clock: clock) : nil
        guard let comparison = clock.systemClockOffset() else { return .noTime }
        if options.json {
            var json = SkippedSyncJSON(comparison, state: store.path)
            json.set = setting.map(SetJSON.init)
            console.out(JSONOutput.line(json))
        } else {
            console.out(
                "skipped: the stored anchor's bound ± \(comparison.errorBound.formattedSeconds) is within --max-bound"
                    + " (\(comparison.isAuthenticated ? "authenticated" : "unauthenticated")); nothing was sent"
            )
            if let setting { console.out(SetCommand.text(setting)) }
        }
        return setting.map(finish) ?? .success
    }

    /// `set`'s exit status: 1 when the correction was refused (the reason on stderr), else 0.
    private func finish(_ setting: SetCommand.Outcome) -> ExitStatus {
        guard let refusal = setting.refusal else { return .success }
        console.err("netclock: the system clock was not corrected: \(refusal.description)")
        return .noTime
    }

    /// Prints what the clock said about its state files during the sync (the NTS cookie file not
    /// used or not kept) and returns the anchor file's write failure and the frequency reset the
    /// sync caused, if any. Reads the clock's events up to the sync's own.
    private func reportStateEvents(_ events: AsyncStream<ClockEvent>, store: AnchorStore) async
        -> (AnchorStoreError?, ClockEvent.FrequencyReset?)
    {
        var anchorFailure: AnchorStoreError?
        var frequencyReset: ClockEvent.FrequencyReset?
        for await event in events {
            switch event {
            case .restoreFailed(let error) where error.path == store.ntsCookiePath:
                console.err("netclock: the kept NTS cookies were not used: \(error.reason)")
            case .storeFailed(let error) where error.path == store.ntsCookiePath:
                console.err("netclock: the NTS cookies could not be kept: \(error.reason)")
            case .storeFailed(let error):
                anchorFailure = error
            case .frequencyReset(let reset):
                frequencyReset = reset
            case .synced, .syncFailed:
                return (anchorFailure, frequencyReset)
            default:
                continue
            }
        }
        return (anchorFailure, frequencyReset)
    }

    /// Exit 1 for a state file refused as not private, before any query.
    private func refuse(_ error: AnchorStoreError) -> ExitStatus {
        if options.json { console.out(JSONOutput.line(StateFailureJSON(error))) }
        console.err("netclock: refusing the state file: \(error.reason); nothing was read or sent")
        return .noTime
    }
}
