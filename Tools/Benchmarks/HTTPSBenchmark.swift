import Foundation
import HTTPTime
import LoopbackServers
import NetClockPlatform
import NetworkClock

/// `netclock-bench https`: in one run, two loopback servers with the same clock and delays (true
/// offset +2.3 s, 0–20 ms uniform processing delay, seeded) — one plain HTTP, one HTTPS with the
/// test CA's certificate — measured alternately, batch by batch, with the refined `Date` estimate
/// and with the millisecond timestamp header. Prints each method's rows and the HTTPS / HTTP ratios
/// of the median absolute error, the median error bound and the median time per measurement.
func runHTTPSBenchmark() async {
    let truth = Duration.milliseconds(2_300)
    let batches = 4
    let configuration = HTTPTimeServer.Configuration(
        offset: truth, delayBeforeStamp: .uniform(.zero, .milliseconds(20)),
        timestampHeaderName: "X-Server-Time-Ms")
    let plain: HTTPTimeServer
    let secure: HTTPTimeServer
    let certificates: TestCertificates
    do {
        certificates = try TestCertificates.require()
        plain = try HTTPTimeServer(configuration: configuration, seed: 2026)
        secure = try HTTPTimeServer(
            configuration: configuration, seed: 2026, tls: HTTPSTimeServerTLS(certificates))
    } catch {
        print("https benchmark: cannot start the loopback servers: \(error)")
        return
    }
    defer {
        plain.stop()
        secure.stop()
    }
    guard let plainURL = URL(string: plain.urlString),
        let secureURL = URL(string: secure.url(hostName: "localhost"))
    else { return }
    print("HTTPS (own TLS client, TLS 1.3) vs plain HTTP against loopback servers: true offset +2.300 s,")
    print("0–20 ms uniform delay before stamping, \(batches * 5) trials per method and scheme, one run.")

    let trust = NetworkClock.TrustRoots.certificateFile(certificates.caFile).tlsTrustRoots
    let dateSource = HTTPTimeClient(trustRoots: trust)
    let headerSource = HTTPTimeClient(
        configuration: .init(timestampHeader: "X-Server-Time-Ms"), trustRoots: trust)
    var rows: [String: HTTPSBenchmarkSeries] = [:]
    for _ in 0..<batches {
        for (name, url) in [("http", plainURL), ("https", secureURL)] {
            await rows["refined Date, \(name)", default: .init()].measure(dateSource, url, truth: truth)
            await rows["X-Server-Time-Ms, \(name)", default: .init()].measure(headerSource, url, truth: truth)
        }
    }
    print(HTTPBenchmarkRow.header + "  time/measurement")
    for method in ["refined Date", "X-Server-Time-Ms"] {
        for scheme in ["http", "https"] {
            let series = rows["\(method), \(scheme)"] ?? .init()
            var row = series.row
            row.name = "\(method) (\(scheme))"
            print(row.line + "  " + HTTPSBenchmarkSeries.ms(series.medianTime))
        }
    }
    print("\nHTTPS / HTTP ratios (medians; 1.00 = the same):")
    for method in ["refined Date", "X-Server-Time-Ms"] {
        let http = rows["\(method), http"] ?? .init()
        let https = rows["\(method), https"] ?? .init()
        print(
            "  \(method): |error| \(HTTPSBenchmarkSeries.ratio(https.medianError, http.medianError)), "
                + "bound \(HTTPSBenchmarkSeries.ratio(https.medianBound, http.medianBound)), "
                + "time \(HTTPSBenchmarkSeries.ratio(https.medianTime, http.medianTime)), "
                + "failures \(https.failures)/\(http.failures)")
    }
}

/// One method and scheme's measurements: the benchmark row, and each measurement's duration.
struct HTTPSBenchmarkSeries {
    var row = HTTPBenchmarkRow(name: "")
    var errors: [Duration] = []
    var bounds: [Duration] = []
    var times: [Duration] = []
    var failures = 0

    /// Five concurrent measurements of `url` with `source`.
    mutating func measure(_ source: HTTPTimeClient, _ url: URL, truth: Duration) async {
        let batch = await withTaskGroup(of: (HTTPTimeMeasurement?, Duration).self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let start = ContinuousClock.now
                    let measurement = try? await source.measure(url)
                    return (measurement, ContinuousClock.now - start)
                }
            }
            var results: [(HTTPTimeMeasurement?, Duration)] = []
            for await result in group { results.append(result) }
            return results
        }
        for (measurement, time) in batch {
            guard let measurement else {
                failures += 1
                continue
            }
            let error = measurement.offset - truth
            row.add(
                error: error, bound: measurement.errorBound, requests: measurement.requests.count,
                inside: measurement.offsets.contains(truth))
            errors.append(error < .zero ? .zero - error : error)
            bounds.append(measurement.errorBound)
            times.append(time)
        }
    }

    var medianError: Duration { Self.median(errors) }
    var medianBound: Duration { Self.median(bounds) }
    var medianTime: Duration { Self.median(times) }

    static func median(_ values: [Duration]) -> Duration {
        let sorted = values.sorted()
        return sorted.isEmpty ? .zero : sorted[(sorted.count - 1) / 2]
    }

    static func ratio(_ numerator: Duration, _ denominator: Duration) -> String {
        guard denominator > .zero else { return "–" }
        return String(format: "%.2f", numerator / denominator)
    }

    static func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1fms", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
    }
}
