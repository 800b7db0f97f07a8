import NetClockPlatform
import TimeValues

/// Learns the oscillator's frequency error from the sync history, as an interval: each pair of
/// points bounds the mean frequency between them, widened by the wander allowed since
/// (``ClockPolicy/wanderPPM``, ``ClockPolicy/wanderRatePPMPerHour``, ``ClockPolicy/wanderLimitPPM``),
/// and the tracker keeps the intersection. An empty one resets the history to the newest points that
/// still agree; with fewer than two points the interval is ±``ClockPolicy/priorTolerancePPM``, or
/// what an earlier boot measured (``carried``, `FrequencyTracker+Carried.swift`).
///
/// A plain value with no threads or clocks inside; ``AnchoredClock`` feeds it. The derivation: the
/// HowTheErrorBoundWorks article, "Frequency".
package struct FrequencyTracker: Sendable, Hashable {
    /// One sync: the true time at a time-base instant, within a bound.
    package struct Point: Sendable, Hashable {
        /// Where on the time base the sync holds.
        package var base: TimeBaseInstant
        /// The true time there.
        package var trueTime: UnixTime
        /// The maximum error of `trueTime`.
        package var errorBound: Duration

        /// Creates a point.
        package init(base: TimeBaseInstant, trueTime: UnixTime, errorBound: Duration) {
            self.base = base
            self.trueTime = trueTime
            self.errorBound = errorBound
        }
    }

    /// Why the history was reset.
    package enum ResetReason: String, Sendable, Hashable {
        /// A sync's pairs contradicted the frequency the earlier syncs measured.
        case frequencyChanged = "frequency_changed"
        /// A sync did not overlap the clock's prediction (``AnchorUpdate/discontinuous(step:)``).
        case discontinuity
        /// A leap second lies between the history and the sync: POSIX time stepped by a second
        /// that the oscillator did not, so the earlier points measure no frequency against it.
        case leapSecond = "leap_second"
    }

    /// The thresholds the tracker works with.
    package let policy: ClockPolicy
    /// The kept points, oldest first (by total time-base time).
    package private(set) var points: [Point] = []
    /// How many times the history was reset.
    package private(set) var resetCount = 0
    /// The reason of the latest reset.
    package private(set) var lastReset: ResetReason?
    /// Every usable pair of ``points``, kept up to date with them (offers read them often).
    private(set) var pairs: [Pair] = []
    /// Where an earlier boot left the frequency error, widened for the reboot (``carry(from:)``);
    /// it holds at every instant of this boot while the wander and reboot allowances do. Dropped
    /// by any reset but a leap second's.
    package internal(set) var carried: FrequencyInterval?

    /// Pairs whose awake span is shorter than this are not used: their interval would be hundreds
    /// of ppm wide at best.
    static let minimumPairSpan = Duration.seconds(1)

    /// Creates a tracker, optionally seeded with points saved earlier in this boot; points that do
    /// not agree with the newest are dropped (not counted as a reset).
    /// A `carried` interval (``FrequencyInterval/carried(lower:upper:policy:)``) is kept while
    /// the points agree with it.
    package init(policy: ClockPolicy = ClockPolicy(), points: [Point] = [], carried: FrequencyInterval? = nil)
    {
        self.policy = policy
        for point in points { _ = insert(point) }
        pairs = Self.pairs(of: self.points, policy: policy)
        keepConsistentNewest()
        self.carried = carried
        if !carriedAgrees { self.carried = nil }
    }

    // MARK: Adding

    /// Adds a sync point.
    ///
    /// A point at the same instant as a kept one replaces it only if its bound is tighter. Points
    /// older than ``ClockPolicy/frequencyHistoryWindow`` before the newest are forgotten; beyond
    /// ``ClockPolicy/frequencyHistoryCapacity``, one of the closest-spaced pair is dropped.
    /// A point whose pairs contradict ``carried`` drops it, as a reset.
    /// - Returns: ``ResetReason/frequencyChanged`` when the point contradicted the history (which
    ///   was then cut back to the newest points that agree) or ``carried``; nil otherwise.
    @discardableResult
    package mutating func add(_ point: Point) -> ResetReason? {
        guard insert(point) else { return nil }
        pairs = Self.pairs(of: points, policy: policy)
        let consistent = keepConsistentNewest()
        guard !consistent || !carriedAgrees else { return nil }
        carried = nil
        resetCount += 1
        lastReset = .frequencyChanged
        return .frequencyChanged
    }

    /// Takes in points saved elsewhere (another process's history, read back from a state file) as
    /// ``init(policy:points:)`` does: a point already kept is not added twice, and points that do
    /// not agree with the newest are dropped without counting as a reset. The reset count stays.
    package mutating func merge(_ others: [Point]) {
        var changed = false
        for point in others where insert(point) { changed = true }
        guard changed else { return }
        pairs = Self.pairs(of: points, policy: policy)
        keepConsistentNewest()
        if !carriedAgrees { carried = nil }
    }

    /// The same history on clocks whose time-namespace offsets moved by `change`: every point's
    /// time-base instant shifted (``TimeBaseInstant/shifted(by:)``), nothing else changed.
    package mutating func shift(by change: TimeNamespaceOffsets) {
        points = points.map { point in
            var moved = point
            moved.base = point.base.shifted(by: change)
            return moved
        }
        pairs = Self.pairs(of: points, policy: policy)
    }

    /// Forgets every point but `point`'s (after a sync contradicted the clock's prediction), and
    /// ``carried`` unless a leap second is the reason (it says nothing about the oscillator). It
    /// counts as a reset when a frequency had been measured (two points or more) or carried.
    package mutating func reset(keeping point: Point, reason: ResetReason) {
        if reason != .leapSecond, carried != nil {
            carried = nil
            resetCount += 1
            lastReset = reason
        } else if points.count >= 2 {
            resetCount += 1
            lastReset = reason
        }
        points = point.isValid ? [point] : []
        pairs = []
    }

    private mutating func insert(_ point: Point) -> Bool {
        guard point.isValid else { return false }
        if let index = points.firstIndex(where: { $0.base == point.base }) {
            guard point.errorBound < points[index].errorBound else { return false }
            points[index] = point
            return true
        }
        let index = points.firstIndex(where: { $0.base.total > point.base.total }) ?? points.count
        points.insert(point, at: index)
        if let newest = points.last {
            let window = policy.historyWindow
            points.removeAll { newest.base.total - $0.base.total > window }
        }
        while points.count > policy.historyCapacity { thin() }
        return points.contains(point)
    }

    /// Drops one point of the adjacent pair closest together: the one with the larger bound, but
    /// never the first or last point.
    private mutating func thin() {
        guard points.count > 2 else { return }
        guard points.count > 3 else {
            points.remove(at: 1)
            return
        }
        var closest = 1
        var smallestGap = points[1].base.total - points[0].base.total
        for index in 2..<points.count {
            let gap = points[index].base.total - points[index - 1].base.total
            if gap < smallestGap {
                closest = index
                smallestGap = gap
            }
        }
        let earlier = closest - 1
        let victim: Int
        if earlier == 0 {
            victim = closest
        } else if closest == points.count - 1 {
            victim = earlier
        } else {
            victim = points[earlier].errorBound > points[closest].errorBound ? earlier : closest
        }
        points.remove(at: victim)
    }

    /// Keeps the newest point and the run of points before it whose pairs all still intersect
    /// (``pairs`` must be up to date); returns whether every point was kept.
    @discardableResult
    private mutating func keepConsistentNewest() -> Bool {
        guard let newest = points.last else { return true }
        guard Self.intersection(of: pairs, at: newest.base, policy: policy) == nil else { return true }
        var kept = points.count - 1
        while kept > 0 {
            let suffix = Self.pairs(of: Array(points[(kept - 1)...]), policy: policy)
            guard Self.intersection(of: suffix, at: newest.base, policy: policy) != nil else { break }
            kept -= 1
        }
        points.removeFirst(kept)
        pairs = Self.pairs(of: points, policy: policy)
        return false
    }

    // MARK: The interval

    /// The interval at `instant`: where the oscillator's frequency error lies then, by every pair
    /// widened to it, intersected with the prior unless the measurement contradicts the prior, and
    /// with ``carried`` when they overlap; ``carried`` alone, or else the prior, when the pairs
    /// measure nothing.
    package func interval(at instant: TimeBaseInstant) -> FrequencyInterval {
        let prior = policy.priorFraction
        let unmeasured =
            carried
            ?? FrequencyInterval(
                lower: -prior, upper: prior, rateLimit: prior, isMeasured: false, exceedsPrior: false)
        guard !pairs.isEmpty, let measured = Self.intersection(of: pairs, at: instant, policy: policy) else {
            return unmeasured
        }
        var lower = measured.lower
        var upper = measured.upper
        let exceedsPrior = lower > prior || upper < -prior
        if !exceedsPrior && lower <= -prior && upper >= prior {
            // The pairs say nothing the prior does not.
            return unmeasured
        }
        if !exceedsPrior {
            lower = max(lower, -prior)
            upper = min(upper, prior)
        }
        // Both hold at every instant (the carried one by its widening), so both at once.
        let carried = carried.flatMap { max($0.lower, lower) <= min($0.upper, upper) ? $0 : nil }
        if let carried {
            lower = max(lower, carried.lower)
            upper = min(upper, carried.upper)
        }
        let center = (lower + upper) / 2
        let halfWidth = (upper - lower) / 2
        // However long the wander, the frequency stays within Ω of every pair's unwidened interval,
        // and within the carried interval.
        var limit = exceedsPrior ? Double.infinity : prior + abs(center)
        for pair in pairs {
            limit = min(limit, abs(center - pair.center) + pair.halfWidth + policy.wanderLimitFraction)
        }
        if let carried { limit = min(limit, abs(center - carried.center) + carried.halfWidth) }
        return FrequencyInterval(
            lower: lower, upper: upper, rateLimit: max(limit, halfWidth), isMeasured: true,
            exceedsPrior: exceedsPrior)
    }
}

extension FrequencyTracker.Point {
    /// A bound that is not negative and under a year, and instants within ±146 years.
    package var isValid: Bool {
        let year = Duration.seconds(366 * 86_400)
        let limit = Duration.seconds(146 * 366 * 86_400)
        return errorBound >= .zero && errorBound < year && abs(base.awake) < limit
            && abs(base.suspended) < limit
            && abs(trueTime.sinceEpoch) < .seconds(Int64(1) << 40)
    }
}
