import Foundation
import LoopbackServers
import NTSClient
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// The clients and the timed operations of the NTS benchmark.
struct NTSBench {
    let plainAddress: SocketAddress
    let keServer: ServerName
    let trust: TLSClientConfiguration.TrustRoots
    let clock = BootTimeClock()
    let client = SNTPClient()
    let single = QueryOptions(samples: 1, interval: .zero, timeout: .seconds(1))
    let burst = QueryOptions(samples: 4, interval: .zero, timeout: .seconds(1))

    /// One key exchange with the loopback NTS server.
    func keyExchange() throws -> NTSKeyExchangeResult {
        do {
            return try NTSKeyExchange.run(with: keServer, trust: trust, family: .any, timeout: .seconds(5))
        } catch {
            throw NTSBenchmarkFailure("NTS-KE with \(keServer) failed: \(error)")
        }
    }

    /// One timed single-request query of `address`, protected by `protection` if given.
    func exchange(_ address: SocketAddress, protection: NTSPacketProtection?) throws -> NTSBenchRun {
        let start = clock.now()
        let cpu = threadCPUSeconds()
        let result = client.query(address, options: single, deadline: nil, protection: protection)
        let cpuTime = threadCPUSeconds() - cpu
        let time = (clock.now() - start).secondsDouble
        guard let best = result.best else {
            let kind = protection == nil ? "plain" : "NTS"
            throw NTSBenchmarkFailure(
                "a \(kind) exchange with \(address) gave no sample: \(result.failure?.description ?? "unknown")"
            )
        }
        return NTSBenchRun(time: time, cpu: cpuTime, sample: best)
    }

    /// One timed plain 4-sample burst.
    func plainBurst() throws -> NTSBenchRun {
        let start = clock.now()
        let cpu = threadCPUSeconds()
        let result = client.query(plainAddress, options: burst)
        let cpuTime = threadCPUSeconds() - cpu
        let time = (clock.now() - start).secondsDouble
        guard let best = result.best, result.samples.count == burst.samples else {
            throw NTSBenchmarkFailure(
                "a plain burst gave \(result.samples.count) samples: \(result.failure?.description ?? "")")
        }
        return NTSBenchRun(time: time, cpu: cpuTime, sample: best)
    }

    /// A timed first NTS query with fresh sessions (key exchange + burst), then a timed second one
    /// on the same sessions (cookies kept, no key exchange).
    func ntsQueries() throws -> (first: NTSBenchRun, second: NTSBenchRun) {
        let query = query(sessions: NTSSessions())
        let first = try timedQuery(query, keyExchanges: 1)
        let second = try timedQuery(query, keyExchanges: 0)
        return (first, second)
    }

    /// An `NTSQuery` of the NTS server on `sessions`.
    func query(sessions: NTSSessions) -> NTSQuery {
        NTSQuery(
            client: client, trust: trust, family: .any, sessions: sessions, keyExchangeTimeout: .seconds(5))
    }

    /// One timed 4-sample `query`, which must make `keyExchanges` key exchanges.
    func timedQuery(_ query: NTSQuery, keyExchanges expected: Int) throws -> NTSBenchRun {
        let start = clock.now()
        let cpu = threadCPUSeconds()
        let outcome = query.query(keServer, options: burst, deadline: client.monotonic.now() + .seconds(10))
        let cpuTime = threadCPUSeconds() - cpu
        let time = (clock.now() - start).secondsDouble
        if let failure = outcome.failure {
            throw NTSBenchmarkFailure("NTSQuery of \(keServer) failed: \(failure)")
        }
        guard let result = outcome.result, let best = result.best, result.samples.count == burst.samples,
            outcome.keyExchanges == expected
        else {
            throw NTSBenchmarkFailure(
                "NTSQuery of \(keServer): \(outcome.result?.samples.count ?? 0) samples and "
                    + "\(outcome.keyExchanges) key exchanges (expected \(burst.samples) and \(expected))")
        }
        return NTSBenchRun(time: time, cpu: cpuTime, sample: best)
    }
}

/// One timed run (wall and calling-thread CPU seconds) and the sample it gave.
struct NTSBenchRun {
    var time: Double
    var cpu: Double
    var sample: NTPSample
}

/// Seconds of CPU time the calling thread has used.
func threadCPUSeconds() -> Double {
    var time = timespec()
    _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// The times of one kind of run, its offset errors, and how many lay outside their bound.
struct NTSBenchSeries {
    var times: [Double] = []
    var cpu: [Double] = []
    var errors: [Double] = []
    var outside = 0

    mutating func add(_ run: NTSBenchRun, truth: Duration) {
        times.append(run.time)
        cpu.append(run.cpu)
        let error = run.sample.offset - truth
        let magnitude = error < .zero ? .zero - error : error
        errors.append(magnitude.secondsDouble)
        if magnitude > run.sample.errorBound { outside += 1 }
    }

    var median: Double { Stats.median(times) }
    var cpuMedian: Double { Stats.median(cpu) }

    func row(_ name: String, baseline: Double, _ cpuBaseline: Double, baselineName: String) -> [String] {
        [
            name, "\(times.count)", ms(median), ms(Stats.quantile(times, 0.9)),
            baseline > 0 ? String(format: "×%.2f", median / baseline) : "–", baselineName,
            String(format: "%.4f", cpuMedian * 1000),
            cpuBaseline > 0 ? String(format: "×%.2f", cpuMedian / cpuBaseline) : "–",
            errors.isEmpty ? "–" : ms(Stats.quantile(errors, 0.9)),
            errors.isEmpty ? "–" : "\(errors.count - outside)/\(errors.count)",
        ]
    }
}
