import NetClockPlatform
import Testing
import TimeValues

/// The package's one drift rule, `Duration.drift(atPPM:)`: never less than the exact product, and at
/// most two nanoseconds more.
struct DriftRuleTests {
    @Test(arguments: [
        (Duration.seconds(1), 15.0, Duration.nanoseconds(15_000)),
        (Duration.milliseconds(3), 15.0, Duration.nanoseconds(45)),
        (Duration.seconds(86_400), 500.0, Duration.milliseconds(43_200)),
        (Duration.nanoseconds(7), 1.0, Duration.nanoseconds(7) / 1_000_000),
    ])
    func atLeastTheExactProductAndAtMostTwoNanosecondsMore(duration: Duration, ppm: Double, exact: Duration) {
        let drift = duration.drift(atPPM: ppm)
        #expect(drift >= exact)
        #expect(drift <= exact + .nanoseconds(2))
    }

    @Test func zeroForNothingToDriftOver() {
        #expect(Duration.zero.drift(atPPM: 15) == .zero)
        #expect(Duration.seconds(-5).drift(atPPM: 15) == .zero)
        #expect(Duration.seconds(5).drift(atPPM: 0) == .zero)
        #expect(Duration.seconds(5).drift(atPPM: -3) == .zero)
        #expect(Duration.seconds(5).drift(atPPM: .nan) == .zero)
    }
}
