import NTSClient
import NetworkClock
import SNTP

/// `netclock sync`: query like `query`, then persist the result as an anchor for `now`.
///
/// An anchor already on file (same boot) is loaded first, so a worse new result never replaces a
/// better stored one and the drift history keeps growing across runs. With `--nts`, the NTS keys
/// and unused cookies are kept beside the anchor (`<state>.nts`), so the next `sync` of this boot
/// spends them instead of running a new key exchange.
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
        let report: SyncReport
        let sessions = NTSSessions()
        let usesNTS = options.syncPolicy.usesNTS
        if usesNTS { sessions.restore(from: store, trust: options.trustRoots) }
        let outcome = await TimeQuery(options: options, ntsSessions: sessions).run(
            status: options.json ? nil : console.status)
        if usesNTS, let reason = await sessions.save(to: store, trust: options.trustRoots) {
            console.err("netclock: the NTS cookies could not be kept: \(reason)")
        }
        switch outcome {
        case .success(let result): report = result
        case .failure(let error):
            if options.json { console.out(JSONOutput.line(SyncFailureJSON(error))) }
            console.err("netclock: \(error.description)")
            return .noTime
        }
        let clock = AnchoredClock()
        _ = await clock.restore(from: store)
        let before = clock.frequency()
        let replaced = clock.update(report.anchor)
        let reset = clock.frequencyReset(since: before)
        let frequency = clock.frequency()
        do {
            try await clock.save(to: store)
        } catch {
            if options.json { console.out(JSONOutput.line(SyncReportJSON(report))) }
            console.err("netclock: synced, but the anchor could not be saved: \(error.description)")
            return .noTime
        }
        if options.json {
            console.out(
                JSONOutput.line(
                    SyncReportJSON(
                        report, state: store.path, anchorReplaced: replaced, frequency: frequency,
                        frequencyReset: reset)))
        } else {
            console.out(ReportText.report(report))
            console.out(ReportText.frequency(frequency, reset: reset))
            let kept = replaced ? "saved" : "kept the stored anchor (tighter bound than this sync); saved"
            console.out("\(kept) to \(store.path)")
        }
        return .success
    }
}
