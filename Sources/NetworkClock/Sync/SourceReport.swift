import NetClockPlatform
import SNTP

/// What became of one source (one address of one configured server) in a sync.
package struct SourceStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The status name, as the CLI's JSON prints it.
    package var rawValue: String

    /// Creates a status from its name.
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The source whose sample became the result (or, when several are combined, the best of them).
    package static let selected = SourceStatus(rawValue: "selected")
    /// A source that agreed with the majority and was combined into the result.
    package static let survivor = SourceStatus(rawValue: "survivor")
    /// A source whose interval lies outside the majority's agreement: excluded.
    package static let falseticker = SourceStatus(rawValue: "falseticker")
    /// The source sent a Kiss-o'-Death.
    package static let kissOfDeath = SourceStatus(rawValue: "kod")
    /// No reply before the deadline.
    package static let timeout = SourceStatus(rawValue: "timeout")
    /// ICMP port unreachable.
    package static let refused = SourceStatus(rawValue: "refused")
    /// Replies arrived but every one was rejected.
    package static let rejected = SourceStatus(rawValue: "rejected")
    /// The name did not resolve or a socket call failed.
    package static let error = SourceStatus(rawValue: "error")
    /// Not queried: dropped earlier after a DENY or RSTR Kiss-o'-Death, or backing off.
    package static let skipped = SourceStatus(rawValue: "skipped")

    /// The status name.
    package var description: String { rawValue }
}

/// One source's part in a sync: where it is, what it said, and what was decided about it.
package struct SourceReport: Hashable, Sendable {
    /// The server as configured (`host` or `host:port`).
    package var server: ServerName
    /// The address queried, when the name resolved.
    package var address: SocketAddress?
    /// What was decided.
    package var status: SourceStatus
    /// Why, when the source was not used.
    package var reason: String?
    /// The burst's full record, when the source was queried.
    package var query: ServerQueryResult?

    /// Creates a report.
    package init(
        server: ServerName, address: SocketAddress?, status: SourceStatus, reason: String? = nil,
        query: ServerQueryResult? = nil
    ) {
        self.server = server
        self.address = address
        self.status = status
        self.reason = reason
        self.query = query
    }

    /// The minimum-delay sample, when there is one.
    package var best: NTPSample? { query?.best }

    /// Requests sent to this source.
    package var packetsSent: Int {
        query?.exchanges.filter { $0.nonce != .zero }.count ?? 0
    }
}
