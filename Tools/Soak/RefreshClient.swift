import Foundation
import NetworkClock
import SNTP
import TimeValues

/// `netclock-soak refresh-client ROUNDS URL|SERVER...`: the library's background refresh
/// (``NetworkClock/start()``) with a short interval, printing one line per sync (`synced ...` or
/// `no time: ...`) until `ROUNDS` syncs have ended. Arguments with a scheme are HTTP(S) URLs, the
/// others NTP servers (`host:port`).
enum RefreshClient {
    static func run(rounds: Int, sources: [String]) async -> Int32 {
        let urls = sources.filter { $0.contains("://") }.compactMap { URL(string: $0) }
        let servers = sources.filter { !$0.contains("://") }.compactMap { try? ServerName(parsing: $0) }
        let clock = NetworkClock(
            configuration: NetworkClock.Configuration(
                servers: servers, httpURLs: urls, query: QueryOptions(samples: 4, interval: .zero),
                refresh: NetworkClock.RefreshPolicy(
                    interval: .milliseconds(300), jitter: 0, minimumInterval: .milliseconds(300),
                    initialBackoff: .milliseconds(300), maximumBackoff: .milliseconds(300))))
        let events = clock.events()
        clock.start()
        var ended = 0
        for await event in events {
            let line: String
            switch event {
            case .synced(let report, _):
                line = "synced \(report.source) offset \(report.offset) bound \(report.errorBound)"
            case .syncFailed(let error): line = "no time: \(error)"
            default: continue
            }
            // Unbuffered: the soak reads each line as it is written.
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            ended += 1
            if ended >= rounds { break }
        }
        clock.stop()
        return 0
    }
}
