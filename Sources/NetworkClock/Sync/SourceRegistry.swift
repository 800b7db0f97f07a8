import NetClockPlatform
import SNTP
import Synchronization
import TimeValues

/// The etiquette state of every address queried, kept across syncs (one ``SourceEtiquette`` per
/// address): the sync engine asks it before a burst and tells it how the burst ended.
package final class SourceRegistry: Sendable {
    private let entries = Mutex<[SocketAddress: SourceEtiquette]>([:])

    /// Creates an empty registry.
    package init() {}

    /// Whether a burst to `address` may start at `now`, with packets spaced by `spacing`.
    package func admission(for address: SocketAddress, at now: MonotonicInstant, spacing: Duration)
        -> SourceEtiquette.Admission
    {
        entries.withLock { ($0[address] ?? SourceEtiquette()).admission(at: now, spacing: spacing) }
    }

    /// The state of `address`.
    package func etiquette(for address: SocketAddress) -> SourceEtiquette {
        entries.withLock { $0[address] ?? SourceEtiquette() }
    }

    /// Records a burst to `result.address` that ended at `now`.
    package func record(_ result: ServerQueryResult, at now: MonotonicInstant, rateBackoff: Duration) {
        entries.withLock { table in
            table[result.address, default: SourceEtiquette()].record(
                result, at: now, rateBackoff: rateBackoff)
        }
    }
}
