import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import TimeValues

/// `netclock-bench sync`: the whole engine (parallel bursts, intersection, combination) with 1, 3
/// and 5 servers under jittery, asymmetric, seeded delays; and the three ways of combining the
/// survivors, to justify the default.
func runSyncBenchmark(trials: Int = 30) async throws {
    let truth = Duration.milliseconds(-2750)
    print(
        "sync: engine accuracy, \(trials) syncs per row; each server: out exponential mean 8 ms, back uniform 1-20 ms"
    )
    var table = Table(header: [
        "servers", "combine", "median err (ms)", "p90 err (ms)", "median bound (ms)", "truth in bound",
        "packets/sync", "median time (ms)",
    ])
    for count in [1, 3, 5] {
        var servers: [FakeNTPServer] = []
        for index in 0..<count {
            var configuration = FakeNTPServer.Configuration(offset: truth)
            configuration.seed = UInt64(77 + index)
            configuration.outboundDelay = .exponential(mean: .milliseconds(8))
            configuration.returnDelay = .uniform(.milliseconds(1), .milliseconds(20))
            configuration.rootDispersion = .zero
            servers.append(try FakeNTPServer(configuration: configuration))
        }
        defer { servers.forEach { $0.stop() } }
        let names = servers.map { ServerName(host: $0.host, port: $0.port) }
        for method in count == 1
            ? [NetworkClock.CombineMethod.intersection] : NetworkClock.CombineMethod.allCases
        {
            let policy = SyncPolicy(
                servers: names, query: QueryOptions(samples: 4, interval: .zero, timeout: .seconds(1)),
                combine: method)
            var errors: [Double] = []
            var bounds: [Double] = []
            var times: [Double] = []
            var contained = 0
            var packets = 0
            for _ in 0..<trials {
                let report = try await NTPSyncEngine(policy: policy).sync()
                let error = abs((report.offset - truth).secondsDouble)
                errors.append(error)
                bounds.append(report.errorBound.secondsDouble)
                times.append(report.elapsed.secondsDouble)
                if error <= report.errorBound.secondsDouble { contained += 1 }
                packets += report.packetsSent
            }
            table.add([
                "\(count)", method.rawValue, ms(Stats.median(errors)), ms(Stats.quantile(errors, 0.9)),
                ms(Stats.median(bounds)), String(format: "%.0f%%", 100 * Double(contained) / Double(trials)),
                String(packets / trials), ms(Stats.median(times)),
            ])
        }
    }
    print(table.render())
}
