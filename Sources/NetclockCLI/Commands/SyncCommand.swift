import NTSClient
import NetworkClock
import SNTP

/// `netclock sync`: query like `query`, then persist the result as an anchor for `now`.
///
/// An anchor already on file (same boot) is loaded first, so a worse new result never replaces a
/// better stored one and the drift history keeps growing across runs. With `--nts`, the NTS keys
/// and unused cookies are kept beside the anchor (`<state>.nts`): the next `sync` of this boot
/// takes the file (it is removed before any of its cookies is sent, so two runs never send the
/// same cookie) and spends them instead of running a new key exchange.
///
/// Both state files are checked before any network traffic. One that is not private to this
/// user (a FIFO, a symbolic link, a directory, another user's file, a file others may read or
/// write, a directory others may write) ends the command at once with status 1: `sync` exists to
/// keep state, and it could not keep it there safely. A cookie file that is private but unusable
/// (another boot, other trust roots, an old format, damage) only costs a key exchange.
struct SyncCommand {
    var options: QueryCommandOptions
    var console: Console

    func run() async -> ExitStatus {
        let store: AnchorStore
        switch AnchorFileLocation.store(for: options) {
        case .success(let found): store = found
        case .failure(let error):
            console.err("netclock: cannot store the anchor: \(error.reason)")
            return .noTime
        }
        let usesNTS = options.syncPolicy.usesNTS
        if let error = store.unsafeFileError()
            ?? (usesNTS ? AnchorStore.unsafeFileError(at: store.ntsCookiePath) : nil)
        {
            return refuse(error)
        }
        let sessions = NTSSessions()
        var binding: NTSCookieFile.Binding?
        if usesNTS {
            switch NTSCookieFile.Binding.current(for: store, trust: options.trustRoots) {
            case .success(let current):
                binding = current
                switch sessions.restore(from: store, binding: current) {
                case .failure(let error) where error.isUnsafeFile: return refuse(error)
                case .failure(let error) where error.code != .missing:
                    console.err("netclock: the kept NTS cookies were not used: \(error.reason)")
                default: break
                }
            case .failure(let error):
                console.err("netclock: NTS cookies are neither used nor kept: \(error.reason)")
            }
        }
        let outcome = await TimeQuery(options: options, ntsSessions: sessions).run(
            status: options.json ? nil : console.status)
        if let binding, let error = await sessions.save(to: store, binding: binding) {
            console.err("netclock: the NTS cookies could not be kept: \(error.reason)")
        }
        let report: SyncReport
        switch outcome {
        case .success(let result): report = result
        case .failure(let error):
            if options.json { console.out(JSONOutput.line(SyncFailureJSON(error))) }
            console.err("netclock: \(error.description)")
            return .noTime
        }
        let clock = AnchoredClock()
        _ = await clock.restore(from: store)
        let update = clock.offer(report.anchor)
        let replaced = update.replacedAnchor
        do {
            try await clock.save(to: store)
        } catch {
            if options.json { console.out(JSONOutput.line(SyncReportJSON(report))) }
            console.err("netclock: synced, but the anchor could not be saved: \(error.description)")
            return .noTime
        }
        if options.json {
            console.out(JSONOutput.line(SyncReportJSON(report, state: store.path, anchorReplaced: replaced)))
        } else {
            console.out(ReportText.report(report))
            let kept =
                replaced
                ? "saved"
                : update == .keptAuthenticated
                    ? "kept the stored authenticated anchor (unauthenticated time never replaces it); saved"
                    : "kept the stored anchor (tighter bound than this sync); saved"
            console.out("\(kept) to \(store.path)")
        }
        return .success
    }

    /// Exit 1 for a state file refused as not private, before any query.
    private func refuse(_ error: AnchorStoreError) -> ExitStatus {
        if options.json { console.out(JSONOutput.line(StateFailureJSON(error))) }
        console.err("netclock: refusing the state file: \(error.reason); nothing was read or sent")
        return .noTime
    }
}
