import TimeValues

/// What a ``FrequencyTracker`` takes from an earlier boot: the frequency it measured, as an interval
/// widened for the reboot, never as points, since the earlier boot's instants are on clocks that
/// restarted (the HowTheErrorBoundWorks article, "After a reboot").
extension FrequencyTracker {
    /// Where the frequency error lies on a later boot by this history: every pair's interval
    /// widened by the whole ``ClockPolicy/wanderLimitPPM`` (it holds however long after the pair),
    /// intersected with each other and with ``carried``, then widened by
    /// ``ClockPolicy/rebootAllowancePPM`` and clamped to the prior
    /// (``FrequencyInterval/carried(lower:upper:policy:)``). Nil when the history measured nothing
    /// and carried nothing, or when the result is no narrower than the prior.
    package var intervalForNextBoot: FrequencyInterval? {
        var bounds: (lower: Double, upper: Double)?
        if !pairs.isEmpty {
            let limit = policy.wanderLimitFraction
            var lower = -Double.infinity
            var upper = Double.infinity
            for pair in pairs {
                lower = max(lower, pair.center - pair.halfWidth - limit)
                upper = min(upper, pair.center + pair.halfWidth + limit)
            }
            if lower <= upper { bounds = (lower, upper) }
        }
        if let carried {
            // Both hold on this boot at every instant. A carried interval the pairs contradict is
            // dropped when they do; it is not taken here either.
            if let measured = bounds {
                let lower = max(measured.lower, carried.lower)
                let upper = min(measured.upper, carried.upper)
                if lower <= upper { bounds = (lower, upper) }
            } else {
                bounds = (carried.lower, carried.upper)
            }
        }
        guard let bounds else { return nil }
        let allowance = policy.rebootAllowanceFraction
        return .carried(lower: bounds.lower - allowance, upper: bounds.upper + allowance, policy: policy)
    }

    /// Takes what `earlier` (the history of an earlier boot, on that boot's time base) knew of the
    /// frequency (``intervalForNextBoot``) as ``carried``, intersected with one already carried.
    /// Nothing is taken by a tracker whose history was reset (it saw the oscillator move) or
    /// whose pairs contradict it.
    /// - Returns: whether ``carried`` changed.
    @discardableResult
    package mutating func carry(from earlier: FrequencyTracker) -> Bool {
        mergeCarried(earlier.intervalForNextBoot)
    }

    /// Takes a carried interval another process of this boot saved
    /// (``FrequencyInterval/carried(lower:upper:policy:)``), as ``carry(from:)`` takes an earlier
    /// boot's: intersected with one already carried (none, when the two do not overlap: one of
    /// them is wrong), never by a tracker whose history was reset, never against its pairs.
    /// - Returns: whether ``carried`` changed.
    @discardableResult
    package mutating func mergeCarried(_ other: FrequencyInterval?) -> Bool {
        guard let other, resetCount == 0 else { return false }
        let before = carried
        if let current = carried {
            carried = current.overlap(other).flatMap {
                .carried(lower: $0.lower, upper: $0.upper, policy: policy)
            }
        } else {
            carried = other
        }
        if !carriedAgrees { carried = before }
        return carried != before
    }

    /// Whether ``carried`` overlaps what the pairs allow at the newest point (true without either).
    var carriedAgrees: Bool {
        guard let carried, !pairs.isEmpty, let newest = points.last,
            let measured = Self.intersection(of: pairs, at: newest.base, policy: policy)
        else { return true }
        return max(measured.lower, carried.lower) <= min(measured.upper, carried.upper)
    }
}
