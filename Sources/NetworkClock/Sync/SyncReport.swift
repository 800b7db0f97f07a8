import ClockCore
import NetClockPlatform
import SNTP
import TimeValues

/// The outcome of a successful sync: the estimated true time with its bound, and every source's
/// part in it.
public struct SyncReport: Hashable, Sendable {
    /// True time at `monotonic`.
    public package(set) var trueTime: UnixTime
    /// The monotonic instant at which `trueTime` holds: the anchor point.
    public package(set) var monotonic: MonotonicInstant
    /// The error bound of `trueTime` at `monotonic`.
    public package(set) var errorBound: Duration
    /// True time minus the local wall clock (NTP sign: positive when the local clock is behind).
    public package(set) var offset: Duration
    /// The round-trip delay of the selected source's sample.
    public package(set) var delay: Duration
    /// Which kind of source produced the result.
    public package(set) var source: TimeSource
    /// The selected source's server (as configured) and address.
    public package(set) var server: String
    /// Every server asked, with its status: each address of the NTP and NTS servers, then the
    /// HTTP(S) URLs (measured only when NTP gave no time, or NTP was skipped), then the Roughtime
    /// servers in the order they were asked.
    public package(set) var servers: [SyncReport.Server]
    /// How long the sync took.
    public package(set) var elapsed: Duration
    /// Whether the time is authenticated: every source it rests on is an NTS server whose replies
    /// were verified (RFC 8915). Plain NTP and HTTP time never is.
    public package(set) var isAuthenticated: Bool = false
    /// Whether this is a downgrade: authenticated (NTS) servers were configured, but the time rests
    /// on unauthenticated sources only (plain NTP or HTTP, allowed by ``NetworkClock/NTSMode/prefer``
    /// or ``NetworkClock/NTSMode/mix`` when no NTS source answered). A ``NetworkClock`` accepts such
    /// a result only when ``NetworkClock/Configuration/allowsDowngrade`` is set, and even then it
    /// never moves an anchor that came from authenticated time.
    public package(set) var isDowngraded: Bool = false
    /// What this result did to the ``NetworkClock``'s anchor (set by ``NetworkClock/sync()``; nil
    /// for a result that was not offered to a clock).
    public package(set) var anchorUpdate: AnchorUpdate?
    /// What the Roughtime servers found together, when Roughtime servers are configured (each
    /// one's part is among ``servers``).
    public package(set) var roughtime: RoughtimeSummary?
    /// Which time the servers' certificates were checked against; nil when no certificate was
    /// checked (no NTS key exchange, no `https://` URL measured).
    public package(set) var certificateCheck: CertificateCheck?
    /// Certificates whose validity begins or ends inside the result's error bound: valid at the
    /// estimate, but perhaps not at the true time (with a trusted or Roughtime check).
    public package(set) var certificateWarnings: [String] = []
    /// The deciding sources whose leap indicator disagreed with the others' (then none is trusted)
    /// or with a valid leap-second table (which then decides), as configured (`host` or
    /// `host:port`).
    public package(set) var leapDisagreeing: [String] = []
    /// Why the leap-second table was not used (missing, expired or damaged), or nil when it was
    /// used or none is configured.
    public package(set) var leapTableNote: String?
    /// What the sync learnt about leap seconds: the deciding sources' vote, then a valid table.
    package var leapSchedule: LeapSchedule = .unknown
    /// The deciding sources' leap indicators (checked against a valid table).
    var leapVoters: [LeapVote.Voter] = []

    /// The anchor this result gives a clock.
    package var anchor: Anchor {
        Anchor(
            trueTime: trueTime, monotonic: monotonic, errorBound: errorBound, source: source, server: server,
            isAuthenticated: isAuthenticated, leap: leapSchedule)
    }

    /// NTP requests sent in all.
    public var packetsSent: Int { servers.reduce(0) { $0 + ($1.ntp?.packetsSent ?? 0) } }

    /// The NTP and NTS servers that agreed (selected and survivors).
    public var agreeingSources: Int {
        servers.filter { $0.ntp != nil && $0.tookPart }.count
    }
}

/// Why a sync produced no time: a stable ``code`` for programs, a ``reason`` for people, and every
/// source's report. Compare codes, not reasons.
public struct SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for a kind of failure. New codes may be added; `switch` over known ones
    /// with a `default`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The identifier, e.g. `no_majority`.
        public let rawValue: String

        /// Creates a code from its identifier.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The identifier.
        public var description: String { rawValue }

        /// No servers (and no HTTP URLs) were configured.
        public static let noServers = Code(rawValue: "no_servers")
        /// No source gave a usable sample; each one's report (NTP, then HTTP) says why.
        public static let noUsableSource = Code(rawValue: "no_usable_source")
        /// Sources answered but no majority agreed on the time: evidence of a fault or an attack,
        /// so no weaker source is consulted.
        public static let noMajority = Code(rawValue: "no_majority")
        /// The task awaiting the sync was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// Authenticated (NTS) servers were configured but only unauthenticated sources answered,
        /// and downgrades are not allowed (``NetworkClock/Configuration/allowsDowngrade``); the
        /// clock was not touched.
        public static let unauthenticatedOnly = Code(rawValue: "unauthenticated_only")
        /// Two kinds of authenticated source (NTS and Roughtime) gave contradicting times: one of
        /// them is compromised, and no time is given.
        public static let authenticatedSourcesDisagree = Code(rawValue: "authenticated_sources_disagree")
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, for people, naming each source's reason.
    public let reason: String
    /// Every server asked, with its status and why it gave no time (as in ``SyncReport/servers``).
    public let servers: [SyncReport.Server]
    /// For ``Code/noMajority``: how the vote failed.
    package let majorityFailure: Intersection.Failure?
    /// What the Roughtime servers found together, when Roughtime servers are configured.
    public let roughtime: SyncReport.RoughtimeSummary?
    /// Which time the servers' certificates were checked against; nil when none was checked.
    public package(set) var certificateCheck: SyncReport.CertificateCheck?

    /// Creates an error.
    package init(
        code: Code, reason: String, servers: [SyncReport.Server] = [],
        majorityFailure: Intersection.Failure? = nil, roughtime: SyncReport.RoughtimeSummary? = nil
    ) {
        self.roughtime = roughtime
        self.code = code
        self.reason = reason
        self.servers = servers
        self.majorityFailure = majorityFailure
    }

    /// The reason.
    public var description: String { reason }

    /// Errors are equal when their codes are: reasons and reports describe one occurrence.
    public static func == (lhs: SyncError, rhs: SyncError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension SyncError {
    /// No servers (and no HTTP URLs) were configured.
    package static var noServers: SyncError {
        SyncError(code: .noServers, reason: "no servers configured")
    }

    /// No source gave a usable sample.
    package static func noUsableSource(_ servers: [SyncReport.Server]) -> SyncError {
        let reasons = servers.map { "\($0.nameAndAddress): \($0.reason ?? $0.status.rawValue)" }
        return SyncError(
            code: .noUsableSource, reason: "no usable time source: " + reasons.joined(separator: "; "),
            servers: servers)
    }

    /// Sources answered but no majority agreed.
    package static func noMajority(_ failure: Intersection.Failure, _ servers: [SyncReport.Server])
        -> SyncError
    {
        SyncError(
            code: .noMajority, reason: failure.description, servers: servers, majorityFailure: failure)
    }

    /// Only unauthenticated sources answered although authenticated ones were configured. Like
    /// the report's own Roughtime summary, its Roughtime servers are left out (as they always were).
    package static func unauthenticatedOnly(_ report: SyncReport) -> SyncError {
        SyncError(
            code: .unauthenticatedOnly,
            reason: "only unauthenticated sources answered (a downgrade from NTS): \(report.server) "
                + "gave \(report.offset.signedFormattedSeconds) ± \(report.errorBound.formattedSeconds), "
                + "not used without an explicit permission to downgrade",
            servers: report.servers.filter { $0.roughtime == nil })
    }

    /// The awaiting task was cancelled.
    package static var cancelled: SyncError {
        SyncError(code: .cancelled, reason: "the sync was cancelled")
    }
}

/// The public code is one of the package's `ErrorCode`s (NetClockPlatform), like every other.
extension SyncError.Code: ErrorCode {}

extension SyncError {
    /// Throws ``SyncError/cancelled`` when the current task has been cancelled.
    static func checkCancellation() throws(SyncError) {
        if Task.isCancelled { throw .cancelled }
    }
}
