import Foundation
import Testing

/// The real monitoring programs the monitoring tests run beside `netclock`: Debian's
/// `check_ntp_time` (monitoring-plugins-basic), `prometheus-node-exporter`, and PyPI's
/// `prometheus-client` parser in a virtual environment (`NETCLOCK_PROMETHEUS_VENV`, else
/// `.build/prometheus-venv`, where `.ci/run` makes it). Missing ones skip their tests with the
/// reason; with `NETCLOCK_REQUIRE_PEERS=1` (CI) the tests run and fail instead.
enum MonitoringPeers {
    /// Where Debian installs the Monitoring Plugins.
    static let checkNTPTime = "/usr/lib/nagios/plugins/check_ntp_time"

    /// Whether `check_ntp_time` is there (or CI requires it).
    static var checkNTPTimeRunnable: Bool {
        CLIRunner.peersRequired || FileManager.default.isExecutableFile(atPath: checkNTPTime)
    }

    static let checkNTPTimeMissing: Comment =
        "check_ntp_time not installed (apt-get install -y monitoring-plugins-basic): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    /// The package's root directory (this file is Tests/netclockTests/MonitoringPeers.swift).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The Python of the virtual environment holding `prometheus_client`, when there is one.
    static let python: String? = {
        let environment = ProcessInfo.processInfo.environment["NETCLOCK_PROMETHEUS_VENV"]
        for venv in [environment, packageRoot + "/.build/prometheus-venv"].compactMap({ $0 }) {
            let python = venv + "/bin/python"
            let hasParser = (try? FileManager.default.subpathsOfDirectory(atPath: venv + "/lib"))?.contains {
                $0.hasSuffix("prometheus_client/parser.py")
            }
            if FileManager.default.isExecutableFile(atPath: python), hasParser == true { return python }
        }
        return nil
    }()

    /// Whether node_exporter and the parser are there (or CI requires them).
    static var nodeExporterRunnable: Bool {
        CLIRunner.peersRequired || (InteropTool.path(of: "prometheus-node-exporter") != nil && python != nil)
    }

    static let nodeExporterMissing: Comment =
        "prometheus-node-exporter (apt-get install -y prometheus-node-exporter) or prometheus-client (a venv in NETCLOCK_PROMETHEUS_VENV or .build/prometheus-venv: python3 -m venv V && V/bin/pip install prometheus-client) missing: skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    /// The venv's Python, or a test failure when CI requires it.
    static func requirePython(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            python, "prometheus-client is not installed and NETCLOCK_REQUIRE_PEERS=1 requires it",
            sourceLocation: sourceLocation)
    }

    /// Parses the exposition at `source` (an `http://` URL, else a file) with prometheus_client's
    /// parser; returns every sample as `[name, labels, value]` rows, keyed by sample name.
    static func parse(_ source: String, timeout: Duration = .seconds(20)) throws -> [String: [(
        [String: String], Double
    )]] {
        let python = try requirePython()
        let script = """
            import json, sys, urllib.request
            from prometheus_client.parser import text_string_to_metric_families
            source = sys.argv[1]
            if source.startswith("http://"):
                text = urllib.request.urlopen(source, timeout=10).read().decode()
            else:
                text = open(source, encoding="utf-8").read()
            rows = []
            for family in text_string_to_metric_families(text):
                for sample in family.samples:
                    rows.append([sample.name, sample.labels, sample.value, family.type, family.documentation])
            print(json.dumps(rows))
            """
        let output = try InteropTool.run(python, ["-c", script, source], timeout: timeout)
        guard output.status == 0, !output.timedOut else {
            throw InteropTool.Failure("prometheus_client could not parse \(source): \(output.combined)")
        }
        guard let rows = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[Any]] else {
            throw InteropTool.Failure("unexpected parser output: \(output.stdout)")
        }
        var samples: [String: [([String: String], Double)]] = [:]
        for row in rows {
            guard row.count >= 3, let name = row[0] as? String, let labels = row[1] as? [String: String],
                let value = row[2] as? Double
            else { continue }
            samples[name, default: []].append((labels, value))
        }
        return samples
    }
}
