import NetClockPlatform
import SNTP

/// One source's estimate, put on the monotonic time line so that sources sampled at
/// different instants (or under different wall-clock readings) can be compared.
struct Candidate: Hashable, Sendable {
    /// Index of the source in the sync's report list.
    var index: Int
    /// True time minus monotonic time (the "boot epoch" on the true time scale), by this source.
    var bootEpoch: Duration
    /// The error bound at `instant`.
    var bound: Duration
    /// The instant the estimate holds at.
    var instant: MonotonicInstant
    /// The delay of the source's minimum-delay sample.
    var delay: Duration

    /// A burst's estimate: the midpoint and half-width of its samples' intersection, at its reference
    /// instant; `delay` is the minimum-delay sample's.
    init(index: Int, estimate: BurstEstimate, delay: Duration) {
        self.index = index
        self.bootEpoch = estimate.bootEpoch.offset
        self.bound = estimate.bootEpoch.bound
        self.instant = estimate.reference
        self.delay = delay
    }

    init(index: Int, bootEpoch: Duration, bound: Duration, instant: MonotonicInstant, delay: Duration) {
        self.index = index
        self.bootEpoch = bootEpoch
        self.bound = bound
        self.instant = instant
        self.delay = delay
    }

    /// The bound aged to `reference` at the given frequency tolerance (ppm).
    func bound(at reference: MonotonicInstant, tolerancePPM: Double) -> Duration {
        let age = reference - instant
        return bound + abs(age).drift(atPPM: tolerancePPM)
    }
}

/// Selects and combines candidates: the intersection algorithm rejects falsetickers, then the
/// survivors are combined by the chosen method.
struct SourceCombiner {
    /// The combined estimate.
    struct Outcome: Hashable, Sendable {
        var bootEpoch: Duration
        var bound: Duration
        var instant: MonotonicInstant
        /// Index (in the report list) of the survivor with the smallest bound.
        var selected: Int
        var survivors: [Int]
        var falsetickers: [Int]
    }

    var method: NetworkClock.CombineMethod
    /// The frequency tolerance, in ppm, that ages each candidate's bound to the latest instant.
    var tolerancePPM: Double

    func combine(_ candidates: [Candidate]) throws(Intersection.Failure) -> Outcome {
        guard let latest = candidates.map(\.instant).max() else { throw .noSources }
        let base = candidates[0].bootEpoch
        let intervals = candidates.map {
            OffsetInterval(
                offset: $0.bootEpoch - base, bound: $0.bound(at: latest, tolerancePPM: tolerancePPM))
        }
        let selection = try Intersection.select(intervals)
        let survivors = selection.truechimers
        guard let bestSurvivor = survivors.min(by: { intervals[$0].bound < intervals[$1].bound }) else {
            throw .noSources
        }
        let estimate: OffsetInterval
        switch method {
        case .best:
            estimate = intervals[bestSurvivor]
        case .weightedMean:
            var weightSum = 0.0
            var weighted = 0.0
            for index in survivors {
                let bound = max(intervals[index].bound.secondsDouble, 1e-9)
                let weight = 1 / (bound * bound)
                weightSum += weight
                weighted += weight * intervals[index].offset.secondsDouble
            }
            let mean = Duration(secondsDouble: weighted / weightSum) ?? intervals[bestSurvivor].offset
            let best = intervals[bestSurvivor]
            let distance = mean - best.offset
            estimate = OffsetInterval(
                offset: mean, bound: best.bound + abs(distance))
        case .intersection:
            let lower = survivors.map { intervals[$0].lower }.max() ?? selection.agreement.lower
            let upper = survivors.map { intervals[$0].upper }.min() ?? selection.agreement.upper
            if lower <= upper {
                estimate = OffsetInterval(lower: lower, upper: upper)
            } else {
                estimate = selection.agreement
            }
        }
        return Outcome(
            bootEpoch: base + estimate.offset, bound: estimate.bound, instant: latest,
            selected: candidates[bestSurvivor].index, survivors: survivors.map { candidates[$0].index },
            falsetickers: selection.falsetickers.map { candidates[$0].index })
    }
}
