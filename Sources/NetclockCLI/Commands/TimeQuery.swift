#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetworkClock

/// The clock that `query`, `sync` and `watch` ask: a ``NetworkClock`` configured from the
/// command line, used through its public facade as an app would (plus the live status line).
struct TimeQuery {
    /// The command's options.
    var options: QueryCommandOptions
    /// The clock; its etiquette state and NTS associations last across `watch` rounds.
    let clock: NetworkClock

    /// A clock for `options` that also asks `roughtimeServers`, keeping its anchor and NTS
    /// cookies in `store` when given (`sync`).
    init(options: QueryCommandOptions, roughtimeServers: [RoughtimeServer] = [], store: AnchorStore? = nil) {
        self.options = options
        self.clock = NetworkClock(
            configuration: options.configuration(store: store, roughtimeServers: roughtimeServers))
    }

    /// The clock for `options`, with the Roughtime servers of its `--roughtime` files; nil (the
    /// reason printed on `console`) when a file cannot be used.
    static func make(options: QueryCommandOptions, store: AnchorStore? = nil, console: Console) -> TimeQuery?
    {
        switch RoughtimeServerList.load(options.roughtimeFiles) {
        case .success(let list):
            for skipped in list.skipped { console.err("netclock: \(skipped)") }
            return TimeQuery(options: options, roughtimeServers: list.servers, store: store)
        case .failure(let unusable):
            console.err("netclock: \(unusable.reason)")
            return nil
        }
    }

    /// Writes the proof of a Roughtime server's lie to `--malfeasance-report FILE`, when the round
    /// produced one; returns the path written.
    func keepProof(_ roughtime: SyncReport.RoughtimeSummary?, console: Console) -> String? {
        guard let path = options.malfeasanceReportPath, let report = roughtime?.malfeasanceReport else {
            return nil
        }
        // Mode 0644: a proof is meant to be shared.
        if let reason = PublishedFile.write(Array(report.utf8) + [0x0A], to: path) {
            console.err("netclock: the malfeasance report could not be written: \(reason)")
            return nil
        }
        let liars = roughtime?.liars.joined(separator: ", ") ?? ""
        console.err(
            "netclock: malfeasance report (proof that \(liars.isEmpty ? "a server" : liars) lied) written to \(path)"
        )
        return path
    }

    /// Runs one round; with a `status` writer (a terminal, no `--json`), a live status line shows
    /// its progress and is erased before this returns.
    func run(status: (@Sendable (String) -> Void)? = nil) async -> Result<SyncReport, SyncError> {
        let clock = self.clock
        return await LiveProgress.around(writingTo: status, width: Terminal.standardErrorColumns ?? 80) {
            observer in
            do throws(SyncError) {
                return .success(try await clock.sync(progress: observer))
            } catch {
                return .failure(error)
            }
        }
    }
}

extension QueryCommandOptions {
    /// The facade's configuration these options describe, keeping state in `store` (nil: none)
    /// and asking `roughtimeServers` too.
    func configuration(store: AnchorStore?, roughtimeServers: [RoughtimeServer] = [])
        -> NetworkClock.Configuration
    {
        var http = NetworkClock.HTTPOptions(timestampHeader: httpTimestampHeader)
        http.proxy = proxy
        if timeoutWasGiven { http.requestTimeout = timeout }
        var configuration = NetworkClock.Configuration(
            servers: httpOnly ? [] : effectiveServers,
            httpURLs: httpURLs.compactMap { URL(string: $0) },
            query: QueryOptions(samples: samples, interval: interval, timeout: timeout),
            http: http,
            store: store, ntsMode: ntsMode, trustRoots: trustRoots, allowsDowngrade: allowDowngrade,
            addressFamily: addressFamily, defaultPort: port, roughtimeServers: roughtimeServers,
            certificateTime: certificateTime, leapSecondTable: leapSecondTable)
        configuration.smearingServers = Set(smearingServers)
        return configuration
    }
}
