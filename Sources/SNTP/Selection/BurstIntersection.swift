import NetClockPlatform

/// The intersection of every interval of one burst, aged to a common reference instant.
///
/// Each honest sample proves the truth lies inside its interval (a path can delay a packet, never
/// speed it up), so all of them hold at once and so does their intersection: its lower edge comes
/// from the fastest return leg, its upper edge from the fastest outbound leg, which need not be the
/// same packet. Its midpoint is the estimate and its half-width the bound.
///
/// The reference instant is the latest interval's instant. Aging to it costs each interval its
/// tolerance times its distance from it; any earlier reference would also have to be aged forward
/// to the latest instant before the clock could use it, which charges the later intervals twice
/// (back to the reference, then forward again), so the latest reference is never looser at any
/// instant from then on.
package enum BurstIntersection {
    /// What the intervals of a burst prove together.
    package enum Outcome: Hashable, Sendable {
        /// The intervals share at least one point: their intersection at the reference instant.
        case agreement(TrueTimeInterval)
        /// Two intervals are disjoint, so at least one sample is wrong.
        case conflict(Conflict)
    }

    /// The pair of intervals farthest apart when the intersection is empty.
    package struct Conflict: Hashable, Sendable {
        /// Index (into the input) of the interval with the highest lower edge.
        package var higher: Int
        /// Index (into the input) of the interval with the lowest upper edge.
        package var lower: Int
        /// How far apart the two intervals are (at the reference instant): positive.
        package var gap: Duration
        /// The reference instant both intervals were aged to.
        package var reference: MonotonicInstant
    }

    /// Intersects the intervals of `samples` (each the sample's time ± its bound at its receive
    /// instant, aged by its own frequency tolerance) at the latest receive instant among them; nil
    /// when there are none.
    ///
    /// When the intersection is empty, the conflict names the interval whose lower edge is highest
    /// and the one whose upper edge is lowest: no other pair is farther apart. Ties go to the
    /// earlier interval.
    package static func intersect(_ samples: [NTPSample]) -> Outcome? {
        intersect(samples.map { (interval: $0.interval, tolerancePPM: $0.frequencyTolerancePPM) })
    }

    /// Intersects `intervals`, each aged by its own frequency tolerance, at the latest instant among
    /// them; nil when there are none.
    package static func intersect(_ intervals: [(interval: TrueTimeInterval, tolerancePPM: Double)])
        -> Outcome?
    {
        guard let reference = intervals.map(\.interval.instant).max() else { return nil }
        let aged = intervals.map { $0.interval.aged(to: reference, tolerancePPM: $0.tolerancePPM) }
        var highest = 0
        var lowest = 0
        for index in aged.indices {
            if aged[index].earliest > aged[highest].earliest { highest = index }
            if aged[index].latest < aged[lowest].latest { lowest = index }
        }
        let lower = aged[highest].earliest
        let upper = aged[lowest].latest
        guard lower <= upper else {
            return .conflict(
                Conflict(higher: highest, lower: lowest, gap: lower - upper, reference: reference))
        }
        return .agreement(TrueTimeInterval(earliest: lower, latest: upper, instant: reference))
    }
}
