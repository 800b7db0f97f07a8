import SNTP

/// A weighted least-squares straight line through points with known standard deviations.
///
/// Weights are 1/σ². The slope's variance is `max(1, χ²/ν) / Sxx`: the a-priori value when the
/// residuals are as small as the stated σ promise, inflated when they scatter more (so a fit over
/// badly-behaved points never claims more certainty than the scatter allows).
struct WeightedLineFit: Sendable {
    /// The fitted slope.
    var slope: Double
    /// The fitted value at `x = 0`.
    var intercept: Double
    /// One standard error of `slope`.
    var slopeStandardError: Double
    /// `y - (intercept + slope * x)` for each input point, in input order.
    var residuals: [Double]

    /// Fits a line through `(x, y)` with standard deviations `sigma`; `nil` with fewer than three
    /// points, with all `x` equal, or with any non-finite or non-positive input.
    init?(x: [Double], y: [Double], sigma: [Double]) {
        let n = x.count
        guard n >= 3, y.count == n, sigma.count == n else { return nil }
        var sumW = 0.0
        var sumWX = 0.0
        var sumWY = 0.0
        for i in 0..<n {
            guard x[i].isFinite, y[i].isFinite, sigma[i].isFinite, sigma[i] > 0 else { return nil }
            let w = 1 / (sigma[i] * sigma[i])
            sumW += w
            sumWX += w * x[i]
            sumWY += w * y[i]
        }
        let meanX = sumWX / sumW
        let meanY = sumWY / sumW
        var sxx = 0.0
        var sxy = 0.0
        for i in 0..<n {
            let w = 1 / (sigma[i] * sigma[i])
            let dx = x[i] - meanX
            sxx += w * dx * dx
            sxy += w * dx * (y[i] - meanY)
        }
        guard sxx > 0, sxx.isFinite else { return nil }
        let slope = sxy / sxx
        let intercept = meanY - slope * meanX
        var chiSquare = 0.0
        var residuals = [Double]()
        residuals.reserveCapacity(n)
        for i in 0..<n {
            let r = y[i] - (intercept + slope * x[i])
            residuals.append(r)
            chiSquare += r * r / (sigma[i] * sigma[i])
        }
        let reducedChiSquare = chiSquare / Double(n - 2)
        let variance = max(1, reducedChiSquare) / sxx
        guard slope.isFinite, variance.isFinite else { return nil }
        self.slope = slope
        self.intercept = intercept
        self.slopeStandardError = variance.squareRoot()
        self.residuals = residuals
    }
}
