import NetClockPlatform
import SNTP
import TimeValues

/// Selects and combines candidates: the intersection algorithm rejects falsetickers, then the
/// survivors are combined by the chosen method.
struct SourceCombiner {
    /// The combined estimate.
    struct Outcome: Hashable, Sendable {
        /// The combined interval, at the latest candidate's instant.
        var interval: TrueTimeInterval
        /// Index (in the report list) of the survivor with the smallest bound.
        var selected: Int
        var survivors: [Int]
        var falsetickers: [Int]
    }

    var method: NetworkClock.CombineMethod
    /// The frequency tolerance, in ppm, that ages each candidate to the latest instant.
    var tolerancePPM: Double

    func combine(_ candidates: [Candidate]) throws(Intersection.Failure) -> Outcome {
        let intervals = candidates.map(\.interval).agedToLatest(tolerancePPM: tolerancePPM)
        guard let latest = intervals.first?.instant else { throw .noSources }
        let selection = try Intersection.select(intervals)
        let survivors = selection.truechimers
        guard let bestSurvivor = survivors.min(by: { intervals[$0].radius < intervals[$1].radius }) else {
            throw .noSources
        }
        let estimate: TrueTimeInterval
        switch method {
        case .best:
            estimate = intervals[bestSurvivor]
        case .weightedMean:
            // Offsets from the first candidate's midpoint keep the arithmetic in small numbers.
            let base = intervals[0].midpoint
            var weightSum = 0.0
            var weighted = 0.0
            for index in survivors {
                let bound = max(intervals[index].radius.secondsDouble, 1e-9)
                let weight = 1 / (bound * bound)
                weightSum += weight
                weighted += weight * (intervals[index].midpoint - base).secondsDouble
            }
            let best = intervals[bestSurvivor]
            let mean = Duration(secondsDouble: weighted / weightSum).map { base + $0 } ?? best.midpoint
            estimate = TrueTimeInterval(
                time: mean, bound: best.radius + abs(mean - best.midpoint), instant: latest)
        case .intersection:
            let common = survivors.dropFirst().reduce(Optional(intervals[survivors[0]])) { partial, index in
                partial?.intersection(intervals[index])
            }
            estimate = common ?? selection.agreement
        }
        return Outcome(
            interval: estimate, selected: candidates[bestSurvivor].index,
            survivors: survivors.map { candidates[$0].index },
            falsetickers: selection.falsetickers.map { candidates[$0].index })
    }
}
