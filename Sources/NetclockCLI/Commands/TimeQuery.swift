import Foundation
import HTTPTimeParsing
import NTSClient
import NetworkClock
import SNTP

/// The query that `query`, `sync` and `watch` share: NTP through the sync engine, with the HTTP
/// fallback when URLs are given.
struct TimeQuery {
    var options: QueryCommandOptions
    var engine: TimeSyncEngine

    init(
        options: QueryCommandOptions, registry: SourceRegistry = SourceRegistry(),
        ntsSessions: NTSSessions = NTSSessions()
    ) {
        self.options = options
        var ntp = NTPSyncEngine(policy: options.syncPolicy, registry: registry)
        ntp.ntsSessions = ntsSessions
        var http = HTTPTimeSource.Configuration()
        if let header = options.httpTimestampHeader {
            http.timestampHeader = HTTPTimestampHeader(name: header)
        }
        let urls = options.httpURLs.compactMap { URL(string: $0) }
        let source = HTTPTimeSource(configuration: http, trustRoots: options.trustRoots)
        self.engine = TimeSyncEngine(ntp: ntp, httpURLs: urls, http: source)
    }

    /// Runs one round; with a `status` writer (a terminal, no `--json`), a live status line shows
    /// its progress and is erased before this returns.
    func run(status: (@Sendable (String) -> Void)? = nil) async -> Result<SyncReport, SyncError> {
        await LiveProgress.around(writingTo: status, width: Terminal.standardErrorColumns ?? 80) { observer in
            var engine = self.engine
            engine.progress = observer
            do throws(SyncError) {
                let report = try await engine.sync()
                if report.isDowngraded && !options.allowDowngrade {
                    return .failure(.unauthenticatedOnly(report))
                }
                return .success(report)
            } catch {
                return .failure(error)
            }
        }
    }
}
