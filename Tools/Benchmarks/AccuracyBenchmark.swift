import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP

/// `netclock-bench accuracy`: NetworkClock against the two approaches apps usually take, over
/// network scenarios simulated by the fake server with seeded delays.
///
/// Every method is evaluated on the same exchanges: each trial is one burst of 8; "naive" and
/// "midpoint" use its first exchange, NetworkClock-N the minimum-delay sample of its first N.
struct AccuracyScenario: Sendable {
    var name: String
    var simulates: String
    var offset: Duration
    var outbound: FakeNTPServer.DelayDistribution
    var inbound: FakeNTPServer.DelayDistribution

    static let all: [AccuracyScenario] = [
        AccuracyScenario(
            name: "clean loopback", simulates: "no added delay (µs RTT)", offset: .milliseconds(1500),
            outbound: .none, inbound: .none),
        AccuracyScenario(
            name: "symmetric jitter", simulates: "both ways uniform 5-50 ms", offset: .milliseconds(1500),
            outbound: .uniform(.milliseconds(5), .milliseconds(50)),
            inbound: .uniform(.milliseconds(5), .milliseconds(50))),
        AccuracyScenario(
            name: "asymmetric", simulates: "5 ms out, exponential mean 40 ms back",
            offset: .milliseconds(1500),
            outbound: .constant(.milliseconds(5)), inbound: .exponential(mean: .milliseconds(40))),
        AccuracyScenario(
            name: "heavy tail", simulates: "uniform 5-15 ms, 10% spikes of 200-500 ms",
            offset: .milliseconds(1500),
            outbound: .spikes(
                base: .uniform(.milliseconds(5), .milliseconds(15)), probability: 0.1,
                range: .milliseconds(200)...(.milliseconds(500))),
            inbound: .spikes(
                base: .uniform(.milliseconds(5), .milliseconds(15)), probability: 0.1,
                range: .milliseconds(200)...(.milliseconds(500)))),
        AccuracyScenario(
            name: "huge offset +1 year", simulates: "clock 365 days behind, uniform 1-10 ms",
            offset: .seconds(365 * 86_400),
            outbound: .uniform(.milliseconds(1), .milliseconds(10)),
            inbound: .uniform(.milliseconds(1), .milliseconds(10))),
    ]
}

private struct MethodResult {
    var errors: [Double] = []
    var contained = 0
    var withBound = false
    var packets = 0
    var wall = 0.0

    mutating func add(error: Duration, bound: Duration?) {
        errors.append(abs(error.secondsDouble))
        if let bound {
            withBound = true
            if abs(error.secondsDouble) <= bound.secondsDouble { contained += 1 }
        }
    }
}

func runAccuracyBenchmark(trials: Int = 48, parallel: Int = 12) throws {
    let clock = BootTimeClock()
    let benchStart = clock.now()
    print("accuracy: |estimated offset - true offset| over \(trials) trials per scenario (seeded delays)")
    for scenario in AccuracyScenario.all {
        var servers: [FakeNTPServer] = []
        for index in 0..<parallel {
            var configuration = FakeNTPServer.Configuration(offset: scenario.offset)
            configuration.seed = UInt64(1000 + index)
            configuration.outboundDelay = scenario.outbound
            configuration.returnDelay = scenario.inbound
            configuration.rootDispersion = .zero
            servers.append(try FakeNTPServer(configuration: configuration))
        }
        defer { servers.forEach { $0.stop() } }
        let addresses = servers.compactMap { SocketAddress(numericHost: $0.host, port: $0.port) }
        let options = QueryOptions(samples: 8, interval: .zero, timeout: .seconds(2))
        var bursts: [(ServerQueryResult, Double)] = []
        let scenarioStart = clock.now()
        while bursts.count < trials {
            let batch = parallelMap(addresses) { address -> (ServerQueryResult, Double) in
                let start = BootTimeClock().now()
                let result = SNTPClient().query(address, options: options)
                return (result, (BootTimeClock().now() - start).secondsDouble)
            }
            bursts += batch.prefix(trials - bursts.count)
        }
        let scenarioWall = (clock.now() - scenarioStart).secondsDouble
        var naive = MethodResult()
        var midpoint = MethodResult()
        var filtered: [Int: MethodResult] = [1: MethodResult(), 4: MethodResult(), 8: MethodResult()]
        for (burst, _) in bursts {
            let exchanges = burst.exchanges
            guard let first = exchanges.first?.sample else { continue }
            // (a) naive: server transmit time − local receive time.
            naive.add(error: (first.t3 - first.t4) - scenario.offset, bound: nil)
            naive.packets += 1
            // (b) one exchange, midpoint formula, no bound.
            midpoint.add(error: first.offset - scenario.offset, bound: nil)
            midpoint.packets += 1
            for count in [1, 4, 8] {
                let samples = exchanges.prefix(count).compactMap(\.sample)
                guard let best = samples.min(by: { $0.delay < $1.delay }) else { continue }
                filtered[count]?.add(error: best.offset - scenario.offset, bound: best.errorBound)
                filtered[count]?.packets += count
            }
        }
        // Wall time per trial: exchanges are sequential, so N samples take N/8 of a burst.
        let burstMedian = Stats.median(bursts.map(\.1))
        var table = Table(header: [
            "method", "median err (ms)", "p90 err (ms)", "truth in bound", "packets/trial", "time/trial (ms)",
        ])
        func row(_ name: String, _ result: MethodResult, fraction: Double) {
            let inBound =
                result.withBound
                ? String(
                    format: "%.0f%%", 100 * Double(result.contained) / Double(max(1, result.errors.count)))
                : "no bound"
            table.add([
                name, ms(Stats.median(result.errors)), ms(Stats.quantile(result.errors, 0.9)), inBound,
                String(format: "%.0f", Double(result.packets) / Double(max(1, result.errors.count))),
                ms(burstMedian * fraction),
            ])
        }
        row("naive T3-T4", naive, fraction: 1.0 / 8)
        row("midpoint, 1 exchange", midpoint, fraction: 1.0 / 8)
        for count in [1, 4, 8] {
            row(
                "NetworkClock \(count) sample\(count > 1 ? "s" : "")", filtered[count] ?? MethodResult(),
                fraction: Double(count) / 8)
        }
        print(
            "\n\(scenario.name): \(scenario.simulates) (\(bursts.count) trials, \(String(format: "%.1f", scenarioWall)) s)"
        )
        print(table.render())
    }
    print(String(format: "\ntotal wall time %.1f s", (clock.now() - benchStart).secondsDouble))
}
