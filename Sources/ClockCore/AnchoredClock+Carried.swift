import NetClockPlatform
import TimeValues

/// What an ``AnchoredClock`` takes from an earlier boot of the same machine: the frequency its
/// syncs measured, as a widened prior (``FrequencyTracker/carried``), never as points (the
/// HowTheErrorBoundWorks article, "After a reboot").
extension AnchoredClock {
    /// Takes an earlier boot's frequency knowledge: its sync points `points` (consistent among
    /// themselves, on that boot's time base, which this boot's instants never meet) and the interval
    /// it had itself carried, `carried` (fractions, `lower...upper`), if any. The clock rebuilds
    /// that boot's history, carries what it allows (``FrequencyTracker/carry(from:)``), ages the
    /// current anchor by it and republishes; none of it becomes a point of this boot's history.
    /// A clock whose history was reset takes nothing.
    /// - Returns: whether the clock's frequency knowledge changed.
    @discardableResult
    package func carryFrequency(
        fromEarlierBoot points: [FrequencyTracker.Point], carried: ClosedRange<Double>?
    )
        -> Bool
    {
        let earlier = FrequencyTracker(
            policy: policy, points: points,
            carried: carried.flatMap { .carried(lower: $0.lowerBound, upper: $0.upperBound, policy: policy) })
        checkIdentityIfMoved()
        let reading = timeBase.read()
        return state.withLock { state in
            guard state.frequency.carry(from: earlier) else { return false }
            reage(&state, check: reading)
            return true
        }
    }

    /// Ages the current anchor, if any, by the frequency interval the history gives now and
    /// republishes it (after the history changed other than by an offer).
    func reage(_ state: inout State, check reading: TimeBaseReading) {
        guard let anchor = state.anchor else { return }
        state.aging = HoldoverAging(
            state.frequency.interval(at: anchor.base), policy: policy, reference: anchor.base)
        publish(state, check: reading)
    }
}
