import Foundation
import NetworkClock
import SNTP

/// The clock that `query`, `sync` and `watch` ask: a ``NetworkClock`` configured from the
/// command line, used through its public facade as an app would (plus the live status line).
struct TimeQuery {
    /// The command's options.
    var options: QueryCommandOptions
    /// The clock; its etiquette state and NTS associations last across `watch` rounds.
    let clock: NetworkClock

    /// A clock for `options`, keeping its anchor and NTS cookies in `store` when given (`sync`).
    init(options: QueryCommandOptions, store: AnchorStore? = nil) {
        self.options = options
        self.clock = NetworkClock(configuration: options.configuration(store: store))
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
    /// The facade's configuration these options describe, keeping state in `store` (nil: none).
    func configuration(store: AnchorStore?) -> NetworkClock.Configuration {
        NetworkClock.Configuration(
            servers: httpOnly ? [] : effectiveServers,
            httpURLs: httpURLs.compactMap { URL(string: $0) },
            query: QueryOptions(samples: samples, interval: interval, timeout: timeout),
            http: NetworkClock.HTTPOptions(timestampHeader: httpTimestampHeader),
            store: store, ntsMode: ntsMode, trustRoots: trustRoots, allowsDowngrade: allowDowngrade,
            addressFamily: addressFamily, defaultPort: port)
    }
}
