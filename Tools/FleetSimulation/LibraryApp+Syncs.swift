import ClockCore
import NetworkClock

/// A library sync in flight: its requests went out at `start`; its provisional answer and its
/// final one are still to come.
struct LibrarySync {
    /// What the sync gives.
    var outcome: SyncOutcome
    /// When it started (seconds since the start of the simulation).
    var start: Double
    /// The clock's number for its provisional answers, until the answer is offered.
    var provisionalSync: UInt64?
    /// Whether the app's running process makes it (else a short-lived one does).
    var inProcess: Bool

    /// When its next answer is due.
    var nextAnswer: Double {
        if provisionalSync != nil, let provisional = outcome.provisional { return start + provisional.time }
        return start + outcome.duration
    }
}

/// Syncing as the library's `sync()` does: provisional answers once a majority of the first replies
/// are in (``AnchoredClock/offerProvisional(_:sync:)``), the final one at the end of the round,
/// which is saved.
extension LibraryApp {
    /// Starts a sync now that gives `outcome`.
    package func startSync(_ outcome: SyncOutcome, on device: SimulatedDevice) {
        let provisional = outcome.provisional == nil ? nil : process?.beginProvisionalAnswers()
        syncs.append(
            LibrarySync(
                outcome: outcome, start: device.now, provisionalSync: provisional, inProcess: process != nil))
    }

    /// When the next answer of a sync in flight is due, if one is.
    package var nextAnswer: Double? { syncs.map(\.nextAnswer).min() }

    /// Whether a sync is in flight.
    package var isSyncing: Bool { !syncs.isEmpty }

    /// Gives the answers due now; returns whether a sync ended.
    @discardableResult
    package func answer(on device: SimulatedDevice) -> Bool {
        var ended = false
        while let index = syncs.indices.first(where: { syncs[$0].nextAnswer <= device.now }) {
            let sync = syncs[index]
            if let number = sync.provisionalSync, let provisional = sync.outcome.provisional {
                syncs[index].provisionalSync = nil
                let anchor = anchor(error: provisional.error, bound: provisional.bound, on: device)
                _ = process?.offerProvisional(anchor, sync: number)
            } else {
                syncs.remove(at: index)
                offer(sync.outcome, on: device)
                ended = true
            }
        }
        return ended
    }
}
