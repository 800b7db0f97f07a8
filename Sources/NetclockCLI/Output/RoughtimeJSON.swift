import NetworkClock

/// The `roughtime` object of the `--json` output, present when `--roughtime` is given: the
/// offsets the servers' signed answers agree on, each server's part, the liars, and where their
/// proof was written.
struct RoughtimeJSON: Encodable {
    /// One server.
    struct Server: Encodable {
        var name: String
        var address: Nullable<String>
        var status: String
        var reason: Nullable<String>
        var version: Nullable<String>
        /// The signed midpoint, Unix seconds.
        var midpoint: Nullable<Double>
        /// The signed radius, seconds.
        var radius: Nullable<Double>
        /// The round trip, seconds.
        var roundTrip: Nullable<Double>

        enum CodingKeys: String, CodingKey {
            case name, address, status, reason, version, midpoint, radius
            case roundTrip = "round_trip"
        }
    }

    /// `[lower, upper]` seconds of true time − local wall clock, or `null` without an agreement.
    var agreed: Nullable<[Double]>
    /// Why there is no agreement, or `null`.
    var error: Nullable<String>
    /// The names of the servers whose signed time contradicts the majority.
    var liars: [String]
    /// The file the proof was written to (`--malfeasance-report`), or `null`.
    var malfeasanceReport: Nullable<String>
    var servers: [Server]

    enum CodingKeys: String, CodingKey {
        case agreed, error, liars, servers
        case malfeasanceReport = "malfeasance_report"
    }

    /// The object for `source`, with the Roughtime servers among `servers` and the report written to
    /// `reportPath`.
    init(_ source: SyncReport.RoughtimeSummary, servers: [SyncReport.Server], reportPath: String?) {
        agreed = Nullable(
            source.agreedOffsets.map { [$0.lowerBound.secondsDouble, $0.upperBound.secondsDouble] })
        error = Nullable(source.error)
        liars = source.liars
        malfeasanceReport = Nullable(reportPath)
        self.servers = servers.compactMap { server in
            server.roughtime.map { details in
                Server(
                    name: server.name, address: Nullable(server.address), status: server.status.rawValue,
                    reason: Nullable(server.reason), version: Nullable(details.version),
                    midpoint: Nullable(details.midpoint?.secondsDouble),
                    radius: Nullable(details.radius?.secondsDouble),
                    roundTrip: Nullable(details.roundTrip?.secondsDouble))
            }
        }
    }
}
