import Foundation
import HTTPTime
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import TimeValues

/// `netclock-bench http`: in one run, against one loopback HTTP server (true offset +2.3 s,
/// 0–20 ms uniform processing delay, seeded), compares the error of
/// - a single naive `Date` read, taken as D − t_receive and as D + 0.5 s − t_receive,
/// - the refined `Date` estimate (requests timed around the server's second boundary, ≤ 8),
/// - the millisecond timestamp header (round-trip midpoint, 8 samples intersected),
/// over 20 trials each, and prints the median, 90th percentile and maximum absolute errors, the
/// median error bound and how often the truth lay inside the bound.
func runHTTPBenchmark() async {
    let truth = Duration.milliseconds(2_300)
    let trials = 20
    let configuration = HTTPTimeServer.Configuration(
        offset: truth, delayBeforeStamp: .uniform(.zero, .milliseconds(20)),
        timestampHeaderName: "X-Server-Time-Ms")
    let server: HTTPTimeServer
    do {
        server = try HTTPTimeServer(configuration: configuration, seed: 2026)
    } catch {
        print("http benchmark: cannot start the loopback server: \(error)")
        return
    }
    defer { server.stop() }
    guard let url = URL(string: server.urlString) else { return }
    print("HTTP time against a loopback server: true offset +2.300 s, 0–20 ms uniform delay before")
    print("stamping, \(trials) trials per method, one server, one run.")

    var naiveLow = HTTPBenchmarkRow(name: "naive Date: D − t_receive")
    var naiveHalf = HTTPBenchmarkRow(name: "naive Date: D + 0.5 s − t_receive")
    var generator = SplitMix64(seed: 2026)
    let single = HTTPTimeClient(configuration: .init(maximumRequests: 1))
    for _ in 0..<trials {
        // A random phase relative to the server's second, so the naive reads sample it evenly.
        try? await Task.sleep(for: .milliseconds(Int.random(in: 0..<1_000, using: &generator)))
        guard let measurement = try? await single.measure(url),
            let request = measurement.requests.last, let interval = request.interval
        else { continue }
        let naive = interval.earliest - request.localReceiveTime  // D − t_receive
        naiveLow.add(error: naive - truth, bound: nil, requests: 1)
        naiveHalf.add(error: naive + .milliseconds(500) - truth, bound: nil, requests: 1)
    }

    var refined = HTTPBenchmarkRow(name: "refined Date (≤ 8 requests)")
    let source = HTTPTimeClient()
    for _ in 0..<(trials / 5) {
        let batch = await withTaskGroup(of: HTTPTimeMeasurement?.self) { group in
            for _ in 0..<5 { group.addTask { try? await source.measure(url) } }
            var results: [HTTPTimeMeasurement] = []
            for await result in group { if let result { results.append(result) } }
            return results
        }
        for measurement in batch {
            refined.add(
                error: measurement.offset - truth, bound: measurement.errorBound,
                requests: measurement.requests.count, inside: measurement.offsets.contains(truth))
        }
    }

    var stamped = HTTPBenchmarkRow(name: "X-Server-Time-Ms header (8 samples)")
    let header = HTTPTimeClient(configuration: .init(timestampHeader: "X-Server-Time-Ms"))
    for _ in 0..<trials {
        guard let measurement = try? await header.measure(url) else { continue }
        stamped.add(
            error: measurement.offset - truth, bound: measurement.errorBound,
            requests: measurement.requests.count, inside: measurement.offsets.contains(truth))
    }

    print(HTTPBenchmarkRow.header)
    for row in [naiveLow, naiveHalf, refined, stamped] { print(row.line) }
}

/// One method's results: absolute errors, bounds and request counts.
struct HTTPBenchmarkRow {
    var name: String
    private var errors: [Duration] = []
    private var bounds: [Duration] = []
    private var requests: [Int] = []
    private var inside = 0

    init(name: String) { self.name = name }

    mutating func add(error: Duration, bound: Duration?, requests count: Int, inside isInside: Bool = false) {
        errors.append(abs(error))
        if let bound { bounds.append(bound) }
        requests.append(count)
        if isInside { inside += 1 }
    }

    static var header: String {
        pad("method", 38) + pad("n", 4) + pad("median", 10) + pad("p90", 10) + pad("max", 10)
            + pad("bound", 10) + pad("inside", 8) + "requests"
    }

    var line: String {
        let sorted = errors.sorted()
        let boundText = bounds.isEmpty ? "–" : Self.ms(Self.quantile(bounds.sorted(), 0.5))
        let insideText = bounds.isEmpty ? "–" : "\(inside)/\(errors.count)"
        let meanRequests = requests.isEmpty ? 0 : Double(requests.reduce(0, +)) / Double(requests.count)
        return Self.pad(name, 38) + Self.pad("\(errors.count)", 4)
            + Self.pad(Self.ms(Self.quantile(sorted, 0.5)), 10)
            + Self.pad(Self.ms(Self.quantile(sorted, 0.9)), 10)
            + Self.pad(Self.ms(sorted.last ?? .zero), 10) + Self.pad(boundText, 10) + Self.pad(insideText, 8)
            + String(format: "%.1f", meanRequests)
    }

    private static func quantile(_ sorted: [Duration], _ q: Double) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        let index = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, index))]
    }

    private static func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1fms", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }
}
