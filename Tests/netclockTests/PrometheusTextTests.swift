import Testing

@testable import NetclockCLI

/// The Prometheus text format `watch --metrics` writes: escaping, numbers, families, and the
/// metrics' names and values.
@Suite struct PrometheusTextTests {
    @Test(arguments: [
        ("plain", "plain"), ("a\\b", "a\\\\b"), ("say \"hi\"", "say \\\"hi\\\""),
        ("two\nlines", "two\\nlines"),
        ("crlf\r\n", "crlf\r\\n"), ("[::1]:123", "[::1]:123"), ("ünïcode ✓", "ünïcode ✓"),
    ])
    func labelValues(raw: String, escaped: String) {
        #expect(PrometheusText.escapedLabelValue(raw) == escaped)
    }

    @Test func helpEscapesBackslashAndNewlineOnly() {
        #expect(PrometheusText.escapedHelp("a \"b\" \\ c\nd") == "a \"b\" \\\\ c\\nd")
    }

    @Test(arguments: [
        (0.0, "0"), (3.0, "3"), (-2.0, "-2"), (0.012, "0.012"), (1e-05, "1e-05"), (-0.7, "-0.7"),
        (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"),
        (1796094319.215187, "1796094319.215187"),
    ])
    func numbers(value: Double, text: String) {
        #expect(PrometheusText.number(value) == text)
    }

    @Test func familiesHaveHelpAndTypeAndDropDuplicatesAndEmptyOnes() {
        var text = PrometheusText()
        text.append("netclock_x_seconds", .gauge, help: "X.", 1.5)
        text.append("netclock_none", .gauge, help: "Never written.", nil)
        text.append(
            "netclock_y_total", .counter, help: "Y.",
            [
                .init(1, labels: [("server", "a\"b"), ("address", "")]),
                .init(2, labels: [("server", "a\"b"), ("address", "")]),
                .init(3, labels: [("server", "c"), ("address", "")]),
            ])
        #expect(
            text.text == """
                # HELP netclock_x_seconds X.
                # TYPE netclock_x_seconds gauge
                netclock_x_seconds 1.5
                # HELP netclock_y_total Y.
                # TYPE netclock_y_total counter
                netclock_y_total{server="a\\"b",address=""} 1
                netclock_y_total{server="c",address=""} 3

                """)
    }

    /// Before any time: only the counters and the sources; after: the clock's figures too, every
    /// name prefixed and in base units.
    @Test func watchMetricsNamesAndValues() {
        let metrics = WatchMetrics()
        let before = metrics.text(clock: nil, frequency: nil)
        #expect(!before.contains("netclock_offset_seconds"))
        #expect(before.contains("netclock_sync_successes_total 0\n"))
        #expect(before.contains("netclock_sync_failures_total 0\n"))
        let state = WatchMetrics.ClockState(offset: -0.25, errorBound: 0.004, isAuthenticated: true, age: 2.5)
        let text = metrics.text(clock: state, frequency: nil)
        for line in [
            "netclock_offset_seconds -0.25", "netclock_error_bound_seconds 0.004", "netclock_authenticated 1",
            "netclock_last_sync_age_seconds 2.5", "# TYPE netclock_sync_successes_total counter",
            "# TYPE netclock_offset_seconds gauge",
        ] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.hasPrefix("netclock_"), "\(line)")
        }
    }
}
