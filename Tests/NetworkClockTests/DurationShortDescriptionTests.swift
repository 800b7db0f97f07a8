import NetworkClock
import Testing

/// `Duration.shortDescription`: the package's own form for the durations users print (issue 35:
/// `print(now.errorBound)` gave `0.001196931 seconds` where everything else the package prints
/// says `1.197ms`).
struct DurationShortDescriptionTests {
    @Test(arguments: [
        (Duration.nanoseconds(1_196_931), "1.197ms"), (.nanoseconds(138_900), "138.9µs"),
        (.microseconds(-250), "-250.0µs"), (.nanoseconds(-3_249_994_000), "-3.249994s"),
        (.seconds(1), "1.000000s"), (.zero, "0.000ms"),
    ])
    func shortDescription(of duration: Duration, is text: String) {
        #expect(duration.shortDescription == text)
    }

    /// An estimate's bound printed alone reads as it does inside the estimate's description.
    @Test func anEstimatesBoundAloneAndInItsDescription() {
        let estimate = DescriptionTimeTests.estimate
        #expect(estimate.errorBound.shortDescription == "1.197ms")
        #expect(estimate.description.contains(" ± \(estimate.errorBound.shortDescription) ("), "\(estimate)")
    }
}
