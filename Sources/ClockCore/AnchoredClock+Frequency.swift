/// What an ``AnchoredClock`` knows about its oscillator's frequency (the HowTheErrorBoundWorks
/// article, "Frequency").
extension AnchoredClock {
    /// A copy of the frequency tracker with its sync-point history (what the anchor file saves).
    package var frequencyTracker: FrequencyTracker { state.withLock { $0.frequency } }

    /// What the clock knows about its oscillator's frequency now (see ``FrequencyEstimate``).
    package func frequency() -> FrequencyEstimate {
        let now = timeBase.read().base
        return state.withLock { state in
            FrequencyEstimate(
                tracker: state.frequency, aging: state.aging, anchor: state.anchor?.base, now: now)
        }
    }

    /// The reset of the frequency history since `before` was taken, if there was one (the latest,
    /// when several).
    package func frequencyReset(since before: FrequencyEstimate) -> FrequencyReset? {
        let (count, reason) = state.withLock { ($0.frequency.resetCount, $0.frequency.lastReset) }
        guard count > before.resetCount, let reason else { return nil }
        return FrequencyReset(
            code: reason.rawValue, previousPPM: before.isMeasured ? before.ppm : nil,
            previousIntervalPPM: before.isMeasured ? before.lowerPPM...before.upperPPM : nil)
    }

    /// The rate at which the bound grows now, as a fraction: the frequency interval's half-width
    /// plus the wander allowed since the anchor, or the prior tolerance before the frequency is
    /// measured.
    package var boundGrowthRate: Double { frequency().growthRate }
}
