import NetClockPlatform
import SNTP

/// Estimates the monotonic clock's frequency error from successive syncs.
///
/// Each sync gives a point: at monotonic instant m the true time was t, within ε. Over a span,
/// `(t − m)` drifts linearly with `m` at a slope of −f, where f is the monotonic clock's frequency
/// error; a weighted least-squares fit (weights 1/σ² with σ = ε/√3, the deviation of an error
/// uniform within ±ε) gives f and its standard error. A constant error common to all points, such as
/// an asymmetric network path, shifts the line but not its slope.
///
/// The estimator is a plain value with no threads or clocks inside, so it can be tested directly;
/// ``AnchoredClock`` feeds it and applies ``estimate``.
package struct DriftEstimator: Sendable, Hashable {
    /// One sync: the true time at a monotonic instant, within an error bound.
    package struct SyncPoint: Sendable, Hashable {
        /// The monotonic clock's reading.
        package var monotonic: MonotonicInstant
        /// The true time at `monotonic`.
        package var trueTime: UnixTime
        /// The maximum error of `trueTime`.
        package var errorBound: Duration

        /// Creates a sync point.
        package init(monotonic: MonotonicInstant, trueTime: UnixTime, errorBound: Duration) {
            self.monotonic = monotonic
            self.trueTime = trueTime
            self.errorBound = errorBound
        }

        /// The sync point an anchor records.
        package init(_ anchor: Anchor) {
            self.init(monotonic: anchor.monotonic, trueTime: anchor.trueTime, errorBound: anchor.errorBound)
        }

        var isWithinSupportedRange: Bool {
            Anchor(trueTime: trueTime, monotonic: monotonic, errorBound: errorBound, source: .ntp)
                .isWithinSupportedRange
        }
    }

    /// The thresholds the estimator works with.
    package let policy: NetworkClock.ClockPolicy
    /// The kept sync points, oldest (by monotonic instant) first.
    package private(set) var points: [SyncPoint] = []
    /// The current drift estimate; `nil` until enough points span enough time and agree.
    package private(set) var estimate: DriftEstimate?

    /// The smallest error bound a point is weighted with (1 µs), so an exact-looking point cannot
    /// take an infinite weight.
    static let minimumWeightingBound = 1e-6

    /// Creates an estimator, optionally seeded with earlier sync points (from an ``AnchorStore``).
    package init(policy: NetworkClock.ClockPolicy = NetworkClock.ClockPolicy(), points: [SyncPoint] = []) {
        self.policy = policy
        for point in points { _ = insert(point) }
        refit()
    }

    /// Adds a sync point and updates ``estimate``.
    ///
    /// A point at the same monotonic instant as a kept one replaces it only if its bound is tighter.
    /// Points older than ``ClockPolicy/driftHistoryWindow`` before the newest are forgotten; beyond
    /// ``ClockPolicy/driftHistoryCapacity``, one point of the closest-spaced pair is dropped (never
    /// the oldest or newest, so the span is kept).
    /// - Returns: whether the point was kept; `false` for a duplicate, a negative bound or values
    ///   outside the supported range.
    @discardableResult
    package mutating func add(_ point: SyncPoint) -> Bool {
        let kept = insert(point)
        if kept { refit() }
        return kept
    }

    private mutating func insert(_ point: SyncPoint) -> Bool {
        guard point.isWithinSupportedRange else { return false }
        if let index = points.firstIndex(where: { $0.monotonic == point.monotonic }) {
            guard point.errorBound < points[index].errorBound else { return false }
            points[index] = point
            return true
        }
        let index = points.firstIndex(where: { $0.monotonic > point.monotonic }) ?? points.count
        points.insert(point, at: index)
        if let newest = points.last {
            let window = policy.driftHistoryWindow
            points.removeAll { newest.monotonic - $0.monotonic > window }
        }
        while points.count > policy.historyCapacity { thin() }
        return points.contains(point)
    }

    /// Drops one point of the adjacent pair closest together in monotonic time: the one with the
    /// larger bound, but never the first or last point.
    private mutating func thin() {
        guard points.count > 3 else { return }
        var closest = 1
        var smallestGap = points[1].monotonic - points[0].monotonic
        for index in 2..<points.count {
            let gap = points[index].monotonic - points[index - 1].monotonic
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

    /// Refits the line, rejecting outliers one at a time (the point furthest outside its own bound)
    /// while more than the minimum number of points remain.
    private mutating func refit() {
        estimate = nil
        guard let reference = points.first else { return }
        var active = Array(points.indices)
        var rejected = 0
        while active.count >= policy.minimumSampleCount {
            guard let first = active.first, let last = active.last else { return }
            let span = points[last].monotonic - points[first].monotonic
            guard span >= policy.driftMinimumSpan else { return }
            var x = [Double]()
            var y = [Double]()
            var sigma = [Double]()
            var bounds = [Double]()
            for index in active {
                let point = points[index]
                let elapsed = point.monotonic - reference.monotonic
                x.append(elapsed.secondsDouble)
                y.append(((point.trueTime - reference.trueTime) - elapsed).secondsDouble)
                let bound = max(Self.minimumWeightingBound, point.errorBound.secondsDouble)
                bounds.append(bound)
                sigma.append(bound / 3.0.squareRoot())
            }
            guard let fit = WeightedLineFit(x: x, y: y, sigma: sigma) else { return }
            var worst = 0
            var worstScore = 0.0
            for k in fit.residuals.indices {
                let score = abs(fit.residuals[k]) / bounds[k]
                if score > worstScore {
                    worst = k
                    worstScore = score
                }
            }
            if worstScore > policy.sanitizedOutlierThreshold {
                // With no point to spare, the inconsistent set yields no estimate at all.
                guard active.count > policy.minimumSampleCount else { return }
                active.remove(at: worst)
                rejected += 1
                continue
            }
            let frequencyError = -fit.slope
            let rateUncertainty = 3 * fit.slopeStandardError + policy.uncertaintyFloorFraction
            // An estimate beyond the plausible range, or one known no better than ±1000 ppm, is a
            // failed measurement rather than knowledge.
            guard abs(frequencyError) <= policy.maximumDriftFraction, rateUncertainty <= 1e-3 else {
                return
            }
            estimate = DriftEstimate(
                frequencyError: frequencyError,
                standardError: fit.slopeStandardError,
                rateUncertainty: rateUncertainty,
                sampleCount: active.count,
                rejectedCount: rejected,
                span: span)
            return
        }
    }
}
