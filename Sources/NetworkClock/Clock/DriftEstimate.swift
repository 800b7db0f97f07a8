import SNTP

/// A measured frequency error of the monotonic clock, from a least-squares fit over sync points.
///
/// With `frequencyError` f, true elapsed time = monotonic elapsed time × (1 − f): a clock running
/// 50 ppm fast has f = +50e-6.
package struct DriftEstimate: Sendable, Hashable {
    /// The monotonic clock's frequency error as a fraction; positive when it runs fast.
    package var frequencyError: Double
    /// One standard error of `frequencyError`, as a fraction.
    package var standardError: Double
    /// The rate at which the error bound grows while this estimate is applied, as a fraction:
    /// three standard errors plus ``ClockPolicy/driftUncertaintyFloorPPM``.
    package var rateUncertainty: Double
    /// The number of sync points in the fit, after outliers were rejected.
    package var sampleCount: Int
    /// The number of sync points rejected as outliers.
    package var rejectedCount: Int
    /// The monotonic time between the first and last sync points in the fit.
    package var span: Duration

    /// Creates an estimate from its parts.
    package init(
        frequencyError: Double, standardError: Double, rateUncertainty: Double, sampleCount: Int,
        rejectedCount: Int, span: Duration
    ) {
        self.frequencyError = frequencyError
        self.standardError = standardError
        self.rateUncertainty = rateUncertainty
        self.sampleCount = sampleCount
        self.rejectedCount = rejectedCount
        self.span = span
    }

    /// `frequencyError` in parts per million.
    package var frequencyErrorPPM: Double { frequencyError * 1e6 }

    /// `rateUncertainty` in parts per million.
    package var rateUncertaintyPPM: Double { rateUncertainty * 1e6 }
}
