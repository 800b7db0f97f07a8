import NetClockPlatform
import SNTP
import Synchronization
import TimeValues

/// The NTS associations of a client, one per NTS-KE server, kept across queries so that cookies
/// are spent before a new key exchange is run; and the back-off after failed key exchanges, so a
/// broken or hostile server is not hammered with TLS handshakes.
///
/// Back-off: after `n` consecutive failed key exchanges with a server, none is started for
/// `min(initialBackoff × 2^(n−1), maximumBackoff)`.
package final class NTSSessions: Sendable {
    /// The wait after the first failed key exchange.
    package let initialBackoff: Duration
    /// The longest wait between key exchanges with a failing server.
    package let maximumBackoff: Duration

    /// What is known about one server.
    private struct Entry {
        var association: NTSAssociation?
        var consecutiveFailures = 0
        var notBefore: MonotonicInstant?
    }

    private let entries = Mutex<[ServerName: Entry]>([:])

    /// Sessions with the given back-off (by default 16 s, doubling up to one hour).
    package init(initialBackoff: Duration = .seconds(16), maximumBackoff: Duration = .seconds(3_600)) {
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// The usable association with `server`, if any (one that still has cookies and was not NAKed).
    package func association(for server: ServerName) -> NTSAssociation? {
        entries.withLock { table in
            guard let association = table[server]?.association, !association.needsKeyExchange else {
                return nil
            }
            return association
        }
    }

    /// When the next key exchange with `server` may start, if it is backing off.
    package func backoff(for server: ServerName) -> MonotonicInstant? {
        entries.withLock { $0[server]?.notBefore }
    }

    /// Records a successful key exchange.
    package func succeeded(_ server: ServerName, with association: NTSAssociation) {
        entries.withLock { $0[server] = Entry(association: association) }
    }

    /// Hands the usable associations over to be kept outside these sessions (in a file another
    /// process may take): every association leaves the table (back-off state stays) and gives
    /// up its cookies, so no cookie is ever both held here and kept there. A burst still running
    /// on one of them finds no cookie left and runs a new key exchange.
    package func handOverAssociations() -> [ServerName: NTSAssociation.Saved] {
        entries.withLock { table in
            var saved: [ServerName: NTSAssociation.Saved] = [:]
            for (server, entry) in table {
                guard let association = entry.association else { continue }
                saved[server] = association.handOver()
                table[server]?.association = nil
            }
            return saved
        }
    }

    /// Adopts associations kept by an earlier process, for servers with none yet; returns how
    /// many were adopted. Invalid ones are dropped (their servers get a new key exchange).
    @discardableResult
    package func restore(_ saved: [ServerName: NTSAssociation.Saved]) -> Int {
        let restored = saved.compactMapValues(NTSAssociation.init(restoring:))
        return entries.withLock { table in
            var adopted = 0
            for (server, association) in restored where server.usesNTS && table[server]?.association == nil {
                table[server] = Entry(association: association)
                adopted += 1
            }
            return adopted
        }
    }

    /// Records a failed key exchange at `now`, starting or lengthening the back-off.
    package func failed(_ server: ServerName, at now: MonotonicInstant) {
        let initial = initialBackoff
        let maximum = maximumBackoff
        entries.withLock { table in
            var entry = table[server] ?? Entry()
            entry.association = nil
            entry.consecutiveFailures += 1
            let doublings = min(entry.consecutiveFailures - 1, 16)
            entry.notBefore = now + min(initial * (1 << doublings), maximum)
            table[server] = entry
        }
    }
}
