import NetClockPlatform
import TimeValues

/// How politely we treat one server address across bursts: the spacing between packets, the
/// silence a RATE kiss asks for, and the end of all traffic after DENY or RSTR (RFC 5905 §7.4,
/// RFC 4330 §8). A plain value that every source kind (NTP, NTS, Roughtime) consults in the same
/// way before a burst and updates after it; the sync engine keeps one per address across syncs.
package struct SourceEtiquette: Hashable, Sendable {
    /// When the last burst to the address ended (an upper bound on its last send).
    package var lastSend: MonotonicInstant?
    /// No packet is sent before this instant (after RATE).
    package var notBefore: MonotonicInstant?
    /// The terminal kiss code (DENY or RSTR) that dropped the address for good.
    package var dropped: NTPPacket.KissCode?
    /// Consecutive bursts that produced no sample.
    package var consecutiveFailures = 0

    /// An address nothing has been sent to.
    package init() {}

    /// Whether a burst may start now.
    package enum Admission: Hashable, Sendable, CustomStringConvertible {
        /// Yes; its first packet goes out no earlier than `notBefore` (the spacing since the last
        /// burst), nil when at once.
        case allowed(notBefore: MonotonicInstant?)
        /// Never again: the server sent this terminal kiss.
        case dropped(NTPPacket.KissCode)
        /// Not before `until` (a RATE kiss); `left` is how long that is from now.
        case backingOff(until: MonotonicInstant, left: Duration)

        /// Why the burst was not started, for the source's report; empty when it was allowed.
        package var description: String {
            switch self {
            case .allowed: return ""
            case .dropped(let code): return "dropped after Kiss-o'-Death \(code)"
            case .backingOff(_, let left): return "backing off for \(left.formattedSeconds)"
            }
        }
    }

    /// Whether a burst may start at `now`, whose packets are spaced by `spacing`.
    package func admission(at now: MonotonicInstant, spacing: Duration) -> Admission {
        if let dropped { return .dropped(dropped) }
        if let notBefore, notBefore > now { return .backingOff(until: notBefore, left: notBefore - now) }
        guard let lastSend else { return .allowed(notBefore: nil) }
        let next = lastSend + spacing
        return .allowed(notBefore: next > now ? next : nil)
    }

    /// Learns from a burst that ended at `now`: when it last sent, what its kiss said (RATE
    /// silences the address for `rateBackoff`, DENY and RSTR for good), and whether it failed.
    package mutating func record(_ result: ServerQueryResult, at now: MonotonicInstant, rateBackoff: Duration)
    {
        // Stopped before anything was sent: nothing changes.
        guard !result.exchanges.isEmpty else { return }
        lastSend = now
        switch result.kissCode {
        case .some(let code) where code.isTerminal: dropped = code
        case .some(.rate): notBefore = now + rateBackoff
        default: break
        }
        consecutiveFailures = result.best == nil ? consecutiveFailures + 1 : 0
    }
}
