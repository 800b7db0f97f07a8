import Testing

@testable import NetworkClock

/// How a sync's report reads when printed (issue 35, found trying the README's example).
struct SyncReportDescriptionTests {
    /// The local clock's error, local − true, as `netclock now` prints it: a clock 3.25 s ahead
    /// (``SyncReport/offset`` −3.25 s) is `local clock +3.250000s`. It once printed the offset
    /// under that label, the other way round.
    @Test func theLocalClocksErrorHasTheSignOfNetclockNow() {
        var report = DescriptionTimeTests.report
        #expect(report.offset == .milliseconds(-3_250))
        #expect(report.description.contains(", local clock +3.250000s ± 1.197ms ("), "\(report)")
        report.offset = .milliseconds(1_500)
        #expect(report.description.contains(", local clock -1.500000s ± 1.197ms ("), "\(report)")
    }
}
