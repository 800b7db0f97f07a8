import NetClockPlatform
import TimeValues

/// The intersection of every interval of one burst, each aged to the latest one's instant: its
/// midpoint is the burst's estimate and its half-width the bound (HowTheErrorBoundWorks.md, "Many
/// samples, many servers").
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
