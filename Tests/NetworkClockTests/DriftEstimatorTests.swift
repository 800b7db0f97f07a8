import NetClockPlatform
import SNTP
import Testing

@testable import NetworkClock

@Suite("DriftEstimator")
struct DriftEstimatorTests {
    /// Sync points of a monotonic clock running `ppm` fast, every `spacing` seconds, with the true
    /// time off by `noise(i)` (the measurement error) and bound `bound`.
    private func points(
        count: Int, spacing: Int64 = 300, ppm: Double, bound: Duration = .milliseconds(1),
        noise: (Int) -> Duration = { _ in .zero }
    ) -> [DriftEstimator.SyncPoint] {
        let start = UnixTime(seconds: 1_780_000_000)
        return (0..<count).map { i in
            let trueElapsed = Duration.seconds(spacing * Int64(i))
            let monotonic = MonotonicInstant(
                sinceOrigin: .seconds(1000) + trueElapsed + trueElapsed * (ppm * 1e-6))
            return DriftEstimator.SyncPoint(
                monotonic: monotonic, trueTime: start + trueElapsed + noise(i), errorBound: bound)
        }
    }

    /// A deterministic error pattern within ±0.3 ms, well inside the 1 ms bounds.
    private static func noise(_ i: Int) -> Duration {
        .microseconds([120, -300, 270, -90, 10, -240, 300][i % 7])
    }

    // A clock 50 ppm fast: monotonic = true × (1 + 50e-6), so true = monotonic × (1 − f) with
    // f = 50e-6 / (1 + 50e-6) = 49.9975 ppm. Exact points give it to within rounding.
    @Test("exact points of a +50 ppm clock give f = 49.9975 ppm")
    func exactLine() throws {
        var estimator = DriftEstimator()
        for point in points(count: 4, ppm: 50) { estimator.add(point) }
        let estimate = try #require(estimator.estimate)
        #expect(abs(estimate.frequencyErrorPPM - 50 / (1 + 50e-6)) < 1e-6)
        #expect(estimate.sampleCount == 4)
        #expect(estimate.rejectedCount == 0)
        #expect(
            estimate.span == points(count: 4, ppm: 50)[3].monotonic - points(count: 4, ppm: 50)[0].monotonic)
    }

    // With errors of up to 0.3 ms over a 20-minute span the slope is known to about
    // 0.6 ms / 1200 s ≈ 0.5 ppm at worst, so ±2 ppm (the figure) holds with margin, while a
    // wrong sign or unit (e.g. ppm vs fraction) would miss by far more.
    @Test("noisy points estimate +50 ppm and -30 ppm within ±2 ppm", arguments: [50.0, -30.0])
    func noisyLine(ppm: Double) throws {
        var estimator = DriftEstimator()
        for point in points(count: 5, ppm: ppm, noise: Self.noise(_:)) { estimator.add(point) }
        let estimate = try #require(estimator.estimate)
        #expect(abs(estimate.frequencyErrorPPM - ppm) < 2)
        // 1 ms bounds → σ = 0.577 ms per point; Sxx = 2 × (600² + 300²) s² → σ_f ≈ 0.61 ppm.
        #expect(abs(estimate.standardError * 1e6 - 0.577 / 900_000.0.squareRoot() * 1e3) < 0.01)
        #expect(abs(estimate.rateUncertaintyPPM - (3 * estimate.standardError * 1e6 + 2)) < 1e-9)
        #expect(estimate.rateUncertaintyPPM < 15)
    }

    @Test("no estimate with fewer than three points or a span under the minimum")
    func thresholds() {
        var estimator = DriftEstimator()
        for point in points(count: 2, spacing: 3600, ppm: 50) { estimator.add(point) }
        #expect(estimator.estimate == nil)

        var short = DriftEstimator()
        for point in points(count: 10, spacing: 60, ppm: 50) { short.add(point) }  // 9 minutes
        #expect(short.estimate == nil)

        var custom = DriftEstimator(
            policy: NetworkClock.ClockPolicy(driftMinimumSpan: .seconds(300), driftMinimumSampleCount: 1))
        for point in points(count: 3, spacing: 60, ppm: 50) { custom.add(point) }
        #expect(custom.estimate == nil)  // the minimum count is raised to 3, but 2 minutes < 5
        custom.add(points(count: 6, spacing: 60, ppm: 50)[5])
        #expect(custom.estimate != nil)
    }

    @Test("a point far outside its bound is rejected as an outlier")
    func outlier() throws {
        var estimator = DriftEstimator()
        var samples = points(count: 6, ppm: 20, noise: Self.noise(_:))
        samples[3].trueTime = samples[3].trueTime + .milliseconds(80)
        for point in samples { estimator.add(point) }
        let estimate = try #require(estimator.estimate)
        #expect(estimate.rejectedCount == 1)
        #expect(estimate.sampleCount == 5)
        #expect(abs(estimate.frequencyErrorPPM - 20) < 2)
        // Without rejection the 80 ms step would tilt the line by tens of ppm.
    }

    @Test("three mutually inconsistent points give no estimate rather than a wrong one")
    func inconsistentMinimum() {
        var estimator = DriftEstimator()
        var samples = points(count: 3, ppm: 0)
        samples[1].trueTime = samples[1].trueTime + .milliseconds(50)
        for point in samples { estimator.add(point) }
        #expect(estimator.estimate == nil)
    }

    @Test("an implausible drift (beyond 500 ppm) is ignored")
    func implausible() {
        var estimator = DriftEstimator()
        for point in points(count: 4, ppm: 800) { estimator.add(point) }
        #expect(estimator.estimate == nil)
    }

    @Test("scatter larger than the bounds promise inflates the standard error")
    func inflation() throws {
        var tight = DriftEstimator()
        var loose = DriftEstimator()
        let scatter: (Int) -> Duration = { i in .microseconds(i % 2 == 0 ? 900 : -900) }
        for point in points(count: 6, ppm: 10, bound: .milliseconds(1)) { tight.add(point) }
        for point in points(count: 6, ppm: 10, bound: .milliseconds(1), noise: scatter) { loose.add(point) }
        let a = try #require(tight.estimate)
        let b = try #require(loose.estimate)
        #expect(b.standardError > a.standardError * 1.2)
    }

    @Test("history is bounded: thinning keeps the first and last points; old points expire")
    func boundedHistory() {
        var estimator = DriftEstimator()
        let samples = points(count: 40, spacing: 60, ppm: 5)
        for point in samples { estimator.add(point) }
        #expect(estimator.points.count == 16)
        #expect(estimator.points.first == samples.first)
        #expect(estimator.points.last == samples.last)
        #expect(estimator.estimate != nil)

        var windowed = DriftEstimator(policy: NetworkClock.ClockPolicy(driftHistoryWindow: .seconds(3600)))
        for point in points(count: 8, spacing: 1200, ppm: 5) { windowed.add(point) }
        // Points 4...7 are within 3600 s of point 7 (monotonic runs 5 ppm fast, so point 4 is
        // 3600.018 s before point 7 and drops out); 3 points remain.
        #expect(windowed.points.count == 3)
    }

    @Test("a duplicate instant replaces a point only with a tighter bound")
    func duplicates() {
        var estimator = DriftEstimator()
        let point = points(count: 1, ppm: 0)[0]
        let addedFirst = estimator.add(point)
        #expect(addedFirst)
        var looser = point
        looser.errorBound = .milliseconds(2)
        let addedLooser = estimator.add(looser)
        #expect(!addedLooser)
        var tighter = point
        tighter.errorBound = .microseconds(100)
        let addedTighter = estimator.add(tighter)
        #expect(addedTighter)
        #expect(estimator.points == [tighter])
        var negative = points(count: 2, ppm: 0)[1]
        negative.errorBound = .milliseconds(-1)
        let addedNegative = estimator.add(negative)
        #expect(!addedNegative)
    }

    @Test("an estimator seeded with saved points equals one fed the same points")
    func seeding() {
        let samples = points(count: 5, ppm: 12, noise: Self.noise(_:))
        var fed = DriftEstimator()
        for point in samples { fed.add(point) }
        let seeded = DriftEstimator(points: samples.reversed())
        #expect(seeded == fed)
    }
}
