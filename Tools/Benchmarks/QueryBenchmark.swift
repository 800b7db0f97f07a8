import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import TimeValues

/// `netclock-bench query`: how long a burst takes against the loopback fake server, as a ratio to a
/// single exchange measured in the same run.
func runQueryBenchmark() throws {
    let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: .milliseconds(1500)))
    defer { server.stop() }
    guard let address = SocketAddress(numericHost: server.host, port: server.port) else { return }
    let clock = BootTimeClock()
    func time(samples: Int, runs: Int) -> (median: Double, error: Double) {
        var durations: [Double] = []
        var errors: [Double] = []
        let options = QueryOptions(samples: samples, interval: .zero, timeout: .seconds(1))
        for _ in 0..<runs {
            let start = clock.now()
            let result = SNTPClient().query(address, options: options)
            durations.append((clock.now() - start).secondsDouble)
            if let best = result.best {
                errors.append(abs((best.offset - .milliseconds(1500)).secondsDouble))
            }
        }
        return (Stats.median(durations), Stats.quantile(errors, 0.9))
    }
    _ = time(samples: 1, runs: 20)  // warm up
    let one = time(samples: 1, runs: 200)
    let eight = time(samples: 8, runs: 200)
    var table = Table(header: ["burst", "median time (ms)", "ratio to 1 exchange", "p90 |offset error| (ms)"])
    table.add(["1 exchange", ms(one.median), "1.00", ms(one.error)])
    table.add([
        "8 samples, --interval 0", ms(eight.median), String(format: "%.2f", eight.median / one.median),
        ms(eight.error),
    ])
    print("query: SNTP bursts against the in-process fake server on 127.0.0.1 (200 runs each)")
    print(table.render())
}
