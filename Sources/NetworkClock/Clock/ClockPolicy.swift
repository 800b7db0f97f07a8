import SNTP

extension NetworkClock {
    /// How the clock ages its error bound and estimates the drift of the monotonic clock.
    ///
    /// The defaults suit a commodity machine: a monotonic clock whose frequency is within ±15 ppm until
    /// drift has been measured, and a drift estimate only once at least three syncs span 15 minutes.
    /// Out-of-range values are clamped where they are used, never trapped on.
    public struct ClockPolicy: Sendable, Hashable {
        /// The assumed maximum frequency error of the monotonic clock, in parts per million, used to grow
        /// the error bound until drift is measured. Default 15 ppm, the tolerance NTP assumes (RFC 5905
        /// `PHI`). Clamped to `0...1000`.
        public var frequencyTolerancePPM: Double
        /// The shortest time the sync points must span before drift is estimated. Default 15 minutes:
        /// over a shorter span, a few milliseconds of sample error dominate a few ppm of drift.
        public var driftMinimumSpan: Duration
        /// The fewest sync points a drift estimate uses; at least 3, so that the fit has a residual to
        /// judge its own quality by. Default 3.
        public var driftMinimumSampleCount: Int
        /// The most sync points kept; when full, the closest-spaced point is thinned out. Default 16.
        public var driftHistoryCapacity: Int
        /// Sync points older than this, measured from the newest one, are forgotten, because a crystal's
        /// frequency wanders with temperature and age. Default 24 hours.
        public var driftHistoryWindow: Duration
        /// Added to three standard errors of the measured drift to give the rate at which the bound
        /// grows, in ppm. Default 2 ppm: a quartz oscillator's frequency moves by roughly 0.1–0.5 ppm per
        /// °C, so a few degrees of temperature change between syncs shifts it by about that much, which
        /// past syncs cannot reveal.
        public var driftUncertaintyFloorPPM: Double
        /// A drift estimate beyond this many ppm is treated as a measurement failure and ignored.
        /// Default 500 ppm, NTP's maximum frequency offset (RFC 5905 `MAXFREQ`).
        public var maximumDriftPPM: Double
        /// A sync point whose residual from the fitted line exceeds this multiple of its own error bound
        /// is rejected as an outlier. Default 3.
        public var outlierThreshold: Double

        /// Creates a policy; every parameter has the default described on its property.
        public init(
            frequencyTolerancePPM: Double = QueryOptions.defaultFrequencyTolerancePPM,
            driftMinimumSpan: Duration = .seconds(15 * 60),
            driftMinimumSampleCount: Int = 3,
            driftHistoryCapacity: Int = 16,
            driftHistoryWindow: Duration = .seconds(24 * 3600),
            driftUncertaintyFloorPPM: Double = 2,
            maximumDriftPPM: Double = 500,
            outlierThreshold: Double = 3
        ) {
            self.frequencyTolerancePPM = frequencyTolerancePPM
            self.driftMinimumSpan = driftMinimumSpan
            self.driftMinimumSampleCount = driftMinimumSampleCount
            self.driftHistoryCapacity = driftHistoryCapacity
            self.driftHistoryWindow = driftHistoryWindow
            self.driftUncertaintyFloorPPM = driftUncertaintyFloorPPM
            self.maximumDriftPPM = maximumDriftPPM
            self.outlierThreshold = outlierThreshold
        }

        // MARK: Sanitized values, as the clock and the estimator use them

        /// `frequencyTolerancePPM` as a fraction, clamped to `0...1e-3`.
        var toleranceFraction: Double { QueryOptions.validTolerance(frequencyTolerancePPM) * 1e-6 }

        /// `driftUncertaintyFloorPPM` as a fraction, clamped to `0...1e-3`.
        var uncertaintyFloorFraction: Double { Self.fraction(ppm: driftUncertaintyFloorPPM, fallback: 2) }

        /// `maximumDriftPPM` as a fraction, clamped to `0...1e-3`.
        var maximumDriftFraction: Double { Self.fraction(ppm: maximumDriftPPM, fallback: 500) }

        /// `driftMinimumSampleCount`, at least 3.
        var minimumSampleCount: Int { max(3, driftMinimumSampleCount) }

        /// `driftHistoryCapacity`, at least `minimumSampleCount` and at most 1024.
        var historyCapacity: Int { min(1024, max(minimumSampleCount, driftHistoryCapacity)) }

        /// `outlierThreshold`, at least 1 (a point within its own bound is never an outlier).
        var sanitizedOutlierThreshold: Double {
            outlierThreshold.isFinite ? max(1, outlierThreshold) : 3
        }

        private static func fraction(ppm: Double, fallback: Double) -> Double {
            let value = ppm.isFinite ? ppm : fallback
            return min(1000, max(0, value)) / 1e6
        }
    }
}

