import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import TimeValues

/// `netclock-bench accuracy`: a source's estimate from the intersection of all its samples' intervals
/// against the minimum-delay sample alone, and both against the two approaches apps usually take,
/// over network scenarios simulated by the fake server with seeded delays.
///
/// Every method is scored on the same exchanges: each trial is one burst of 8; "naive" and
/// "midpoint" use its first exchange, the N-sample rows its first N. The information-limit columns
/// come from the legs each packet actually took (``AccuracyTrial``).
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

/// The sample counts scored.
let accuracySampleCounts = [1, 4, 8]

func runAccuracyBenchmark(trials: Int = 200, parallel: Int = 25) throws {
    let clock = BootTimeClock()
    let benchStart = clock.now()
    print(
        "accuracy: |estimated offset - true offset| over \(trials) trials per scenario (seeded delays,"
            + " \(parallel) servers in parallel, --interval 0)")
    var summary = Table(header: [
        "scenario", "err ratio 4", "err ratio 8", "truth in bound", "bound/limit 4", "bound/limit 8",
        "min-delay bound/limit 8",
    ])
    for scenario in AccuracyScenario.all {
        let scenarioStart = clock.now()
        let trialList = try runTrials(scenario, trials: trials, parallel: parallel)
        let scenarioWall = (clock.now() - scenarioStart).secondsDouble
        let scored = AccuracyScores(trialList, offset: scenario.offset)
        let burstMedian = Stats.median(trialList.map(\.wall.secondsDouble))
        print(
            "\n\(scenario.name): \(scenario.simulates) (\(trialList.count) trials, "
                + "\(String(format: "%.1f", scenarioWall)) s; median burst of 8: \(ms(burstMedian)) ms)")
        print(scored.table().render())
        print(scored.latencyNote)
        summary.add(scored.summaryRow(scenario.name))
    }
    print("\nagainst the criteria (err ratio: intersection / min-delay median error, same exchanges;")
    print("bound/limit: median bound / median tightest bound the packets prove)")
    print(summary.render())
    print(String(format: "\ntotal wall time %.1f s", (clock.now() - benchStart).secondsDouble))
}

/// Runs `trials` bursts of 8 against `parallel` fake servers, each worker thread querying its own
/// server in turn, and reads every burst's legs from that server's log.
private func runTrials(_ scenario: AccuracyScenario, trials: Int, parallel: Int) throws -> [AccuracyTrial] {
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
    let options = QueryOptions(samples: 8, interval: .zero, timeout: .seconds(2))
    let offset = scenario.offset
    let perWorker = servers.indices.map { trials / parallel + ($0 < trials % parallel ? 1 : 0) }
    let results = parallelMap(Array(zip(servers, perWorker))) { server, count -> [AccuracyTrial] in
        guard let address = SocketAddress(numericHost: server.host, port: server.port) else { return [] }
        let clock = BootTimeClock()
        var done: [AccuracyTrial] = []
        for _ in 0..<count {
            server.clearRequests()
            let start = clock.now()
            let burst = SNTPClient().query(address, options: options)
            let wall = clock.now() - start
            done.append(AccuracyTrial(burst: burst, log: server.requests, offset: offset, wall: wall))
        }
        return done
    }
    return results.flatMap { $0 }
}
