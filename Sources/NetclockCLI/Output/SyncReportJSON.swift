import NetworkClock

/// The `--json` object of a successful `query`, `sync` or `watch` round (CLIReference, "The JSON of
/// query, sync and watch"). Durations are seconds.
struct SyncReportJSON: Encodable {
    /// True time − local wall clock.
    var offset: Double
    /// Round-trip delay of the selected sample.
    var delay: Double
    /// Error bound of `time`.
    var errorBound: Double
    /// True time, ISO 8601 UTC with microseconds.
    var time: String
    /// True time, seconds since 1970.
    var unix: Double
    /// `ntp` or `http`.
    var source: String
    /// The selected source.
    var server: String
    /// How long the sync took.
    var elapsed: Double
    /// NTP requests sent in all.
    var packetsSent: Int
    /// Every NTP source.
    var servers: [SourceJSON]
    /// Every HTTP source tried.
    var http: [HTTPSourceJSON]
    /// Whether the time is authenticated (every source it rests on is NTS).
    var authenticated: Bool
    /// `unauthenticated_only` when NTS servers were configured but the time rests on
    /// unauthenticated sources (allowed by `--allow-downgrade`), else `null`.
    var downgrade: Nullable<String>
    /// With `--roughtime`: the Roughtime servers' part (absent otherwise).
    var roughtime: RoughtimeJSON?
    /// Which time the certificates were checked against; `null` when none was checked.
    var certificateTime: Nullable<String>
    /// Certificates whose validity begins or ends inside the result's bound.
    var certificateWarnings: [String]
    /// `sync` only: the anchor file (absent for `query` and `watch`).
    var state: String?
    /// `sync` only: whether this sync's anchor replaced the stored one (absent otherwise).
    var anchorReplaced: Bool?
    /// `sync` only: false (a `sync` that `--max-bound` skips prints ``SkippedSyncJSON``; absent
    /// otherwise).
    var skipped: Bool?
    /// `sync` only: what this sync's result did to the held anchor (`adopted`, `intersected`,
    /// `kept`, `kept_authenticated`, `discontinuous`, `refused`; absent otherwise). With
    /// `kept_authenticated` the held authenticated anchor, not this sync's unauthenticated
    /// evidence, is the top level's time.
    var anchorUpdate: String?
    /// `sync` only: the clock's frequency knowledge after this sync (absent otherwise).
    var frequency: FrequencyJSON?
    /// `sync` only: why this sync reset the frequency history, or `null` (absent otherwise).
    var frequencyReset: Nullable<String>?
    /// `set` only: what was done to the system clock (absent otherwise).
    var set: SetJSON?
    var leap: LeapJSON

    enum CodingKeys: String, CodingKey {
        case leap
        case offset, delay, time, unix, source, server, elapsed, servers, http, state, authenticated
        case downgrade, roughtime, frequency, set, skipped
        case certificateTime = "certificate_time"
        case certificateWarnings = "certificate_warnings"
        case errorBound = "error_bound"
        case packetsSent = "packets_sent"
        case anchorReplaced = "anchor_replaced"
        case anchorUpdate = "anchor_update"
        case frequencyReset = "frequency_reset"
    }

    /// The object for `report`; `sync` adds where it saved the anchor, whether it replaced one and
    /// what the result did to it.
    init(
        _ report: SyncReport, state: String? = nil, anchorReplaced: Bool? = nil,
        anchorUpdate: SyncReport.AnchorUpdate? = nil, malfeasanceReport: String? = nil,
        frequency: FrequencyEstimate? = nil, frequencyReset: ClockEvent.FrequencyReset? = nil
    ) {
        roughtime = report.roughtime.map {
            RoughtimeJSON($0, servers: report.servers, reportPath: malfeasanceReport)
        }
        offset = report.offset.secondsDouble
        delay = report.delay.secondsDouble
        errorBound = report.errorBound.secondsDouble
        time = ISO8601.format(report.trueTime, fractionDigits: 6)
        unix = report.trueTime.secondsDouble
        source = report.source.rawValue
        server = report.server
        elapsed = report.elapsed.secondsDouble
        packetsSent = report.packetsSent
        authenticated = report.isAuthenticated
        leap = LeapJSON(report)
        downgrade = Nullable(report.isDowngraded ? SyncError.Code.unauthenticatedOnly.rawValue : nil)
        certificateTime = Nullable(report.certificateCheck?.rawValue)
        certificateWarnings = report.certificateWarnings
        servers = SourceJSON.entries(report.servers, certificateCheck: report.certificateCheck)
        http = HTTPSourceJSON.entries(report.servers, certificateCheck: report.certificateCheck)
        self.state = state
        self.anchorReplaced = anchorReplaced
        self.anchorUpdate = anchorUpdate?.code
        self.skipped = state == nil ? nil : false
        self.frequency = frequency.map(FrequencyJSON.init)
        self.frequencyReset = frequency.map { _ in Nullable(frequencyReset?.code) }
    }
}
