import NetworkClock

/// What `watch --metrics FILE` exports after every round: the clock's offset, bound and
/// authentication now, the age of its last sync, the rounds' successes and failures, the measured
/// frequency, and the last round's sources. Counts accumulate over the rounds of one `watch`.
///
/// Names follow Prometheus' conventions: the `netclock_` prefix, base units (seconds; fractions
/// as `_ratio`), `_total` for counters.
package struct WatchMetrics: Sendable {
    /// One source of the last round.
    package struct Server: Hashable, Sendable {
        /// The server as configured (`host:port`, a URL, a Roughtime server's name).
        package var server: String
        /// The address asked, or empty.
        package var address: String
        /// `ntp`, `nts`, `http` or `roughtime`.
        package var kind: String
        /// The source's status code (`selected`, `survivor`, `timeout`, …).
        package var status: String
        /// Its offset (true time − system clock), when it gave one.
        package var offset: Double?
        /// Its round-trip delay, when measured.
        package var delay: Double?

        /// Creates a source entry.
        package init(
            server: String, address: String, kind: String, status: String, offset: Double?, delay: Double?
        ) {
            self.server = server
            self.address = address
            self.kind = kind
            self.status = status
            self.offset = offset
            self.delay = delay
        }
    }

    /// What the clock says when the file is written.
    package struct ClockState: Hashable, Sendable {
        /// True time − system clock, seconds.
        package var offset: Double
        /// Its error bound now (grown since the sync), seconds.
        package var errorBound: Double
        /// Whether the time is authenticated.
        package var isAuthenticated: Bool
        /// Seconds since the sync the time rests on.
        package var age: Double

        /// Creates a state.
        package init(offset: Double, errorBound: Double, isAuthenticated: Bool, age: Double) {
            self.offset = offset
            self.errorBound = errorBound
            self.isAuthenticated = isAuthenticated
            self.age = age
        }
    }

    /// Rounds that gave a time.
    package private(set) var successes = 0
    /// Rounds that gave none.
    package private(set) var failures = 0
    /// The true time of the last successful round, seconds since 1970.
    package private(set) var lastSuccess: Double?
    /// The last round's sources.
    package private(set) var servers: [Server] = []

    /// No rounds yet.
    package init() {}

    /// Counts a successful round and keeps its sources.
    package mutating func record(_ report: SyncReport) {
        successes += 1
        lastSuccess = report.trueTime.secondsDouble
        servers = Self.servers(report.servers)
    }

    /// Counts a failed round and keeps its sources.
    package mutating func record(_ error: SyncError) {
        failures += 1
        servers = Self.servers(error.servers)
    }

    /// The NTP and NTS servers, the HTTP(S) URLs (both kinds labelled `http`), then the Roughtime
    /// servers.
    private static func servers(_ reports: [SyncReport.Server]) -> [Server] {
        var servers = reports.compactMap { source in
            source.ntp.map { ntp in
                Server(
                    server: source.name, address: source.address ?? "", kind: source.kind.rawValue,
                    status: source.status.rawValue, offset: ntp.best?.offset.secondsDouble,
                    delay: ntp.best?.delay.secondsDouble)
            }
        }
        servers += reports.filter { $0.http != nil }.map { source in
            Server(
                server: source.name, address: "", kind: "http", status: source.status.rawValue,
                offset: source.offset?.secondsDouble, delay: nil)
        }
        servers += reports.compactMap { source in
            source.roughtime.map { roughtime in
                Server(
                    server: source.name, address: source.address ?? "", kind: "roughtime",
                    status: source.status.rawValue, offset: nil, delay: roughtime.roundTrip?.secondsDouble)
            }
        }
        return servers
    }

    /// The exposition: `clock` (nil before any time) and `frequency` as the clock reports them now.
    package func text(clock: ClockState?, frequency: FrequencyEstimate?) -> String {
        var text = PrometheusText()
        text.append(
            "netclock_offset_seconds", .gauge,
            help: "True time minus this system's clock (positive: the system clock is behind).",
            clock?.offset)
        text.append(
            "netclock_error_bound_seconds", .gauge,
            help: "Error bound of netclock_offset_seconds now: the true offset lies within offset +- bound.",
            clock?.errorBound)
        text.append(
            "netclock_authenticated", .gauge,
            help: "1 when the time is authenticated (NTS, Roughtime), else 0.",
            clock.map { $0.isAuthenticated ? 1 : 0 })
        text.append(
            "netclock_last_sync_age_seconds", .gauge,
            help: "Seconds from the sync the time rests on to when this file was written.", clock?.age)
        text.append(
            "netclock_last_sync_timestamp_seconds", .gauge,
            help: "True time of the last successful round, seconds since 1970.", lastSuccess)
        text.append(
            "netclock_sync_successes_total", .counter, help: "Rounds that gave a time.", Double(successes))
        text.append(
            "netclock_sync_failures_total", .counter, help: "Rounds that gave no time.", Double(failures))
        if let frequency {
            text.append(
                "netclock_frequency_ratio", .gauge,
                help: "Frequency error of this machine's oscillator corrected for (positive: it runs fast).",
                frequency.frequencyError)
            text.append(
                "netclock_frequency_bound_ratio", .gauge,
                help: "Half-width of the frequency's interval now: the bound grows at this rate offline.",
                frequency.growthRate)
            text.append(
                "netclock_frequency_measured", .gauge,
                help:
                    "1 when the frequency was measured from two syncs or more, 0 while only the prior holds.",
                frequency.isMeasured ? 1 : 0)
        }
        func labels(_ server: Server) -> [(name: String, value: String)] {
            [("server", server.server), ("address", server.address), ("kind", server.kind)]
        }
        text.append(
            "netclock_server_offset_seconds", .gauge,
            help: "A source's offset in the last round (true time minus this system's clock).",
            servers.compactMap { server in server.offset.map { .init($0, labels: labels(server)) } })
        text.append(
            "netclock_server_delay_seconds", .gauge, help: "A source's round-trip delay in the last round.",
            servers.compactMap { server in server.delay.map { .init($0, labels: labels(server)) } })
        text.append(
            "netclock_server_status", .gauge,
            help:
                "1 for each source of the last round, its status (selected, survivor, timeout, ...) as a label.",
            servers.map { .init(1, labels: labels($0) + [("status", $0.status)]) })
        return text.text
    }
}
