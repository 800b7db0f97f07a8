import NetClockPlatform
import Synchronization
import TimeValues

/// The identity of an ``AnchoredClock``'s clocks (``ClockIdentity``): checked on slow paths, never
/// on ``AnchoredClock/now()``'s hot path; a restore's new time-namespace offsets carry the anchor
/// across the time the clocks did not count, another boot drops it.
extension AnchoredClock {
    /// What a state file keeps: the anchor, its time-base instant, the frequency history and the
    /// time-namespace offsets their instants are measured against (nil when they could not be
    /// read), under one lock acquisition, after a check that the clocks' identity is unchanged.
    package func persistentState() -> (
        anchor: HeldAnchor?, frequency: FrequencyTracker, offsets: TimeNamespaceOffsets?
    ) {
        checkIdentityIfMoved()
        return state.withLock { ($0.anchor, $0.frequency, $0.identity.offsets) }
    }

    /// Calls `observer` (from the thread that noticed it) whenever the clocks' identity changes:
    /// the anchor carried across a restore, or dropped in another boot. Replaces any earlier one.
    package func observeIdentityChanges(_ observer: @escaping @Sendable (ClockIdentityChange) -> Void) {
        identityObserver.withLock { $0 = observer }
    }

    /// ``checkIdentity()`` when the suspend epoch moved since the anchor was published (or none is):
    /// a restore always moves it (real time went on while the clocks stood still), so an unmoved
    /// epoch needs no file read.
    func checkIdentityIfMoved() {
        let epoch = timeBase.read().epoch
        guard cell.read().map({ $0.epoch != epoch }) ?? true else { return }
        checkIdentity()
    }

    /// Reads the boot id and the time namespace's offsets and compares them with those the held
    /// instants are measured against. New offsets in the same boot (a restore) shift the anchor
    /// and the frequency history by their change; another boot drops both. Then republishes (or
    /// clears) and tells the observer. Slow paths only: it reads two files of `/proc`.
    /// - Returns: whether anything changed.
    @discardableResult
    func checkIdentity() -> Bool {
        let fresh = identity.read()
        let change = state.withLock { state -> ClockIdentityChange? in
            let now = state.identity.updated(by: fresh)
            guard now != state.identity else { return nil }
            let before = state.identity
            state.identity = now
            if let was = before.bootID, let current = now.bootID, was != current {
                state.anchor = nil
                state.settled = nil
                state.frequency = FrequencyTracker(policy: policy)
                state.aging = .prior(policy)
                state.lastSuspended = nil
                cell.clear()
                return .otherBoot(was: was, now: current)
            }
            guard let old = before.offsets, let new = now.offsets, old != new else { return nil }
            let moved = old.change(to: new)
            state.frequency.shift(by: moved)
            state.lastSuspended = state.lastSuspended.map { $0 + moved.suspended }
            func shift(_ anchor: HeldAnchor) -> HeldAnchor {
                var held = anchor
                held.anchor.monotonic = held.anchor.monotonic + moved.bootTime
                held.base = held.base.shifted(by: moved)
                return held
            }
            if case .some(let settled?) = state.settled { state.settled = .some(shift(settled)) }
            if let held = state.anchor {
                state.anchor = shift(held)
                // The aging's reference is a total time-base instant too.
                state.aging.reference += moved.bootTime
                publish(state, check: timeBase.read())
            }
            return .shifted(by: moved)
        }
        guard let change else { return false }
        identityObserver.withLock { $0 }?(change)
        return true
    }
}
