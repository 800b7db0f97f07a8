import NetClockPlatform
import TimeValues

/// What one server did in a query: its last valid reply (if any) and how it stood against the
/// others.
package struct RoughtimeServerReport: Hashable, Sendable, CustomStringConvertible {
    /// How a server stood.
    package enum Status: Hashable, Sendable, CustomStringConvertible {
        /// Its valid reply agrees with the majority.
        case agreed
        /// Its valid reply contradicts the majority: a validly signed wrong time.
        case falseticker
        /// Its reply was valid, but there was no majority to judge it against.
        case unresolved
        /// Replies came, and none was valid: the first one's reason.
        case rejected(RoughtimeError)
        /// No reply at all.
        case timedOut
        /// The server could not be asked: an invalid configuration, no address, a socket failure.
        case failed(RoughtimeError)

        /// A stable name: `agreed`, `falseticker`, `unresolved`, `rejected`, `timed_out`, `failed`.
        package var code: String {
            switch self {
            case .agreed: return "agreed"
            case .falseticker: return "falseticker"
            case .unresolved: return "unresolved"
            case .rejected: return "rejected"
            case .timedOut: return "timed_out"
            case .failed: return "failed"
            }
        }

        /// The reason of a rejection or failure.
        package var error: RoughtimeError? {
            switch self {
            case .rejected(let error), .failed(let error): return error
            default: return nil
            }
        }

        /// The code, with the reason for a rejection or failure.
        package var description: String {
            error.map { "\(code) (\($0))" } ?? code
        }
    }

    /// The server's name.
    package var name: String
    /// The address that answered, or the last one tried.
    package var address: String?
    /// The version of its last valid reply.
    package var version: RoughtimeVersion?
    /// The signed midpoint of its last valid reply.
    package var midpoint: UnixTime?
    /// The signed radius of its last valid reply.
    package var radius: Duration?
    /// The round trip of its last valid reply.
    package var roundTrip: Duration?
    /// What its last valid reply proves, carried to the query's common instant.
    package var interval: TrueTimeInterval?
    /// How many valid replies it gave (one per pass over the servers).
    package var validReplies = 0
    /// How many requests went to it, over all passes and addresses.
    package var requests = 0
    /// The replies it sent that were refused, over all passes.
    package var rejections = RoughtimeRejections()
    /// How it stood.
    package var status: Status

    /// A report of a server not yet asked.
    package init(name: String, status: Status) {
        self.name = name
        self.status = status
    }

    /// One line: name, address, version, `midpoint ± radius`, round trip, status.
    package var description: String {
        var parts = [name]
        if let address { parts.append(address) }
        if let version { parts.append(version.description) }
        if let midpoint, let radius {
            parts.append("\(ISO8601.format(midpoint, fractionDigits: 0)) ± \(radius.formattedSeconds)")
        }
        if let roundTrip { parts.append("rtt \(roundTrip.formattedSeconds)") }
        parts.append(status.description)
        if rejections.count > 0, status.error == nil { parts.append("\(rejections.count) replies refused") }
        return parts.joined(separator: "  ")
    }
}
