import NetClockPlatform
import TimeValues

/// What a state file gives an ``AnchoredClock`` and takes from it: a stored anchor and frequency
/// history merged in, the history on its own, and a consistent snapshot to save.
extension AnchoredClock {
    /// Takes what a state file holds: an anchor saved by this or another process of this boot
    /// (source ``TimeSource/restored``) at time-base instant `base` when known, and the frequency
    /// history saved with it, with the interval it carried from an earlier boot (fractions), if
    /// any. The history is merged (``restoreFrequencyHistory(_:carried:)``); the anchor
    /// competes as an offered one does, except that when it contradicts the current anchor (no
    /// overlap) the later of the two on the time base wins, so a file read back never undoes a
    /// fresher sync. Either is dropped when it lies ahead of the time base now (not this boot's
    /// past, whatever the boot id says): the anchor is then placed from its exchange-clock instant.
    @discardableResult
    package func merge(
        stored anchor: Anchor, base: TimeBaseInstant?, history: [FrequencyTracker.Point],
        carried: ClosedRange<Double>? = nil
    ) -> AnchorUpdate {
        let now = timeBase.read().base
        // The suspended time is a difference of two clocks read apart: a reading can put it up to
        // half its spread (tens of nanoseconds) either side of the kernel's value, so an instant
        // saved by one reading may show more suspended time than a later reading does. Within
        // that noise (``HoldoverAging/suspendNoise``) it is still this boot's past.
        let plausible = { (base: TimeBaseInstant) in
            base.awake <= now.awake && base.suspended <= now.suspended + HoldoverAging.suspendNoise
        }
        if history.allSatisfy({ plausible($0.base) }) { restoreFrequencyHistory(history, carried: carried) }
        return offer(anchor, base: base.flatMap { plausible($0) ? $0 : nil }, yieldsWhenOlder: true)
    }

    /// Merges sync points from an earlier process (same boot) into the frequency history
    /// (``FrequencyTracker/merge(_:)``), and the interval it carried from an earlier boot
    /// (fractions; ``FrequencyTracker/mergeCarried(_:)``).
    package func restoreFrequencyHistory(
        _ points: [FrequencyTracker.Point], carried: ClosedRange<Double>? = nil
    ) {
        checkIdentityIfMoved()
        let reading = timeBase.read()
        state.withLock { state in
            state.frequency.merge(points)
            if let carried {
                state.frequency.mergeCarried(
                    .carried(lower: carried.lowerBound, upper: carried.upperBound, policy: policy))
            }
            reage(&state, check: reading)
        }
    }

    /// The anchor, its time-base instant and the frequency history, read under one lock
    /// acquisition; while a sync's provisional answers stand, the anchor held before them.
    package func snapshot() -> (anchor: HeldAnchor?, frequency: FrequencyTracker) {
        state.withLock { ($0.settled ?? $0.anchor, $0.frequency) }
    }
}
