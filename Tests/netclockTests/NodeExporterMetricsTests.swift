import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues
import WallClockReference

@testable import NetclockCLI

/// `watch --metrics FILE` read by a real `prometheus-node-exporter` (its textfile collector, on
/// loopback), scraped over HTTP and parsed by prometheus_client's exposition-format parser.
@Suite(
    .serialized, .enabled(if: MonitoringPeers.nodeExporterRunnable, MonitoringPeers.nodeExporterMissing),
    .wallClockReference)
struct NodeExporterMetricsTests {
    /// node_exporter serving `directory`'s `*.prom` files on a free loopback port; stopped (by its
    /// pid) when the returned process is terminated.
    static func startNodeExporter(directory: String) throws -> (
        process: SpawnedProcess, url: String, log: String
    ) {
        let binary = try InteropTool.require("prometheus-node-exporter", package: "prometheus-node-exporter")
        let port = try LoopbackPorts.freeTCPPort(on: ["127.0.0.1"])
        let log = directory + "/../node-exporter.log"
        let process = try SpawnedProcess(
            binary,
            [
                "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults",
                "--collector.textfile",
                "--collector.textfile.directory=\(directory)",
            ], stdout: log, stderr: log)
        // Up within ten seconds, or the test fails with its log.
        let deadline = ContinuousClock.now + .seconds(10)
        while !LoopbackPorts.tcpConnects(host: "127.0.0.1", port: port) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                process.terminate()
                throw InteropTool.Failure(
                    "node_exporter did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")"
                )
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return (process, "http://127.0.0.1:\(port)/metrics", log)
    }

    /// Three rounds against a server 250 ms ahead; the scrape holds our metrics with the last
    /// round's values (the same doubles the last `--json` line printed), parsed by a real parser.
    @Test func aScrapeHoldsTheLastRound() async throws {
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-metrics")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let textfiles = directory + "/textfiles"
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: false)
        let server = try FakeNTPServer(configuration: .init(host: "127.0.0.1", offset: .milliseconds(250)))
        defer { server.stop() }
        let file = textfiles + "/netclock.prom"
        let watch = try await CLIRunner.run([
            "watch", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "--count", "3",
            "--every",
            "0.2", "--json", "--metrics", file,
        ])
        #expect(watch.status == 0, "\(watch.stderr)")
        let rounds = watch.stdout.split(separator: "\n")
        #expect(rounds.count == 3)
        let last = try #require(
            try JSONSerialization.jsonObject(with: Data((rounds.last ?? "").utf8)) as? [String: Any])
        let lastServer = try #require((last["servers"] as? [[String: Any]])?.first)

        // Written whole, readable by the exporter's user, and no temporary file left beside it.
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: textfiles) == ["netclock.prom"])

        let exporter = try Self.startNodeExporter(directory: textfiles)
        defer { exporter.process.terminate() }
        let scrape = try MonitoringPeers.parse(exporter.url)
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            scrape[name]?.first { sample in labels.allSatisfy { sample.0[$0.key] == $0.value } }?.1
        }
        #expect(value("node_textfile_scrape_error") == 0, "node_exporter could not read the file")
        #expect(value("netclock_sync_successes_total") == 3)
        #expect(value("netclock_sync_failures_total") == 0)
        #expect(value("netclock_authenticated") == 0)
        #expect(value("netclock_last_sync_timestamp_seconds") == last["unix"] as? Double)
        // The offset now: the server's 250 ms within the bound now (same clock at both ends).
        let offset = try #require(value("netclock_offset_seconds"))
        let bound = try #require(value("netclock_error_bound_seconds"))
        #expect(abs(offset - 0.25) <= bound, "\(offset) ± \(bound)")
        let age = try #require(value("netclock_last_sync_age_seconds"))
        #expect(age >= 0 && age < 5)
        #expect(value("netclock_frequency_bound_ratio").map { $0 > 0 && $0 < 0.01 } == true)
        let labels = [
            "server": "127.0.0.1:\(server.port)", "address": "127.0.0.1:\(server.port)", "kind": "ntp",
        ]
        #expect(value("netclock_server_offset_seconds", labels) == lastServer["offset"] as? Double)
        #expect(value("netclock_server_delay_seconds", labels) == lastServer["delay"] as? Double)
        #expect(value("netclock_server_status", labels.merging(["status": "selected"]) { $1 }) == 1)
        let ours = Set(scrape.keys.filter { $0.hasPrefix("netclock_") })
        let expected: Set = [
            "offset_seconds", "error_bound_seconds", "authenticated", "last_sync_age_seconds",
            "last_sync_timestamp_seconds", "sync_successes_total", "sync_failures_total", "frequency_ratio",
            "frequency_bound_ratio", "frequency_measured", "server_offset_seconds", "server_delay_seconds",
            "server_status",
        ]
        #expect(ours == Set(expected.map { "netclock_" + $0 }), "\(ours.sorted())")
    }

    /// A failing round counts as a failure, keeps the last time's figures (its bound grown), and
    /// the source's status says why.
    @Test func aFailedRoundIsCounted() async throws {
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-metrics")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = FakeNTPServer.Configuration(host: "127.0.0.1", offset: .zero)
        configuration.behaviour = .noReply
        let server = try FakeNTPServer(configuration: configuration)
        defer { server.stop() }
        let file = directory + "/netclock.prom"
        let watch = try await CLIRunner.run([
            "watch", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "1", "--timeout", "0.2",
            "--count", "2", "--every", "0.2", "--metrics", file,
        ])
        #expect(watch.status == 1)
        let parsed = try MonitoringPeers.parse(file)
        #expect(parsed["netclock_sync_failures_total"]?.first?.1 == 2)
        #expect(parsed["netclock_sync_successes_total"]?.first?.1 == 0)
        #expect(parsed["netclock_offset_seconds"] == nil, "no time yet: no offset")
        #expect(parsed["netclock_server_status"]?.first?.0["status"] == "timeout")
    }

    /// Label values a server name could carry (quotes, backslashes, line feeds, non-ASCII) round-
    /// trip through the real parser.
    @Test func escapedLabelsRoundTrip() throws {
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-metrics")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let names = ["plain", "say \"hi\"", "back\\slash", "two\nlines", "ünï ✓", "trailing\\"]
        var text = PrometheusText()
        text.append(
            "netclock_test_seconds", .gauge, help: "Help with \\ and\nnewline.",
            names.enumerated().map { .init(Double($0.offset), labels: [("server", $0.element)]) })
        let file = directory + "/test.prom"
        try text.text.write(toFile: file, atomically: true, encoding: .utf8)
        let parsed = try MonitoringPeers.parse(file)
        let samples = try #require(parsed["netclock_test_seconds"])
        #expect(samples.map { $0.0["server"] ?? "" } == names)
        #expect(samples.map(\.1) == names.indices.map(Double.init))
    }
}
