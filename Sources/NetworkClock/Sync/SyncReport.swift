import SNTP

/// The outcome of a successful sync: the estimated true time with its bound, and every source's
/// part in it.
package struct SyncReport: Hashable, Sendable {
    /// True time at `monotonic`.
    package var trueTime: UnixTime
    /// The monotonic instant at which `trueTime` holds: the anchor point.
    package var monotonic: MonotonicInstant
    /// The error bound of `trueTime` at `monotonic`.
    package var errorBound: Duration
    /// True time minus the local wall clock (NTP sign: positive when the local clock is behind).
    package var offset: Duration
    /// The round-trip delay of the selected source's sample.
    package var delay: Duration
    /// Which kind of source produced the result.
    package var source: TimeSource
    /// The selected source's server (as configured) and address.
    package var server: String
    /// Every NTP source, with its status.
    package var sources: [SourceReport]
    /// Every HTTP source tried (only when NTP gave no time, or NTP was skipped).
    package var httpSources: [HTTPSourceReport] = []
    /// How long the sync took.
    package var elapsed: Duration

    /// The anchor this result gives a clock.
    package var anchor: Anchor {
        Anchor(
            trueTime: trueTime, monotonic: monotonic, errorBound: errorBound, source: source, server: server)
    }

    /// Requests sent in all.
    package var packetsSent: Int { sources.reduce(0) { $0 + $1.packetsSent } }

    /// The sources that agreed (selected and survivors).
    package var agreeingSources: Int {
        sources.filter { $0.status == .selected || $0.status == .survivor }.count
    }
}

/// Why a sync produced no time.
package enum SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No servers (and no HTTP URLs) were configured.
    case noServers
    /// No source gave a usable sample; each one's report (NTP, then HTTP) says why.
    case noUsableSource([SourceReport], http: [HTTPSourceReport] = [])
    /// Sources answered but no majority agreed on the time.
    case noMajority(Intersection.Failure, [SourceReport])
    /// The task awaiting the sync was cancelled.
    case cancelled

    /// Every source's report.
    package var sources: [SourceReport] {
        switch self {
        case .noServers, .cancelled: return []
        case .noUsableSource(let sources, _), .noMajority(_, let sources): return sources
        }
    }

    /// Every HTTP source's report.
    package var httpSources: [HTTPSourceReport] {
        if case .noUsableSource(_, let http) = self { return http }
        return []
    }

    /// A readable explanation, naming each source's reason.
    package var description: String {
        switch self {
        case .noServers:
            return "no servers configured"
        case .noUsableSource(let sources, let http):
            let reasons =
                sources.map { report in
                    let place = report.address.map { "\(report.server) (\($0))" } ?? "\(report.server)"
                    return "\(place): \(report.reason ?? report.status.rawValue)"
                } + http.map { "\($0.url): \($0.reason ?? $0.status.rawValue)" }
            return "no usable time source: " + reasons.joined(separator: "; ")
        case .noMajority(let failure, _):
            return failure.description
        case .cancelled:
            return "the sync was cancelled"
        }
    }
}
