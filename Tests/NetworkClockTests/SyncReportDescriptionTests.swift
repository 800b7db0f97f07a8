import NetClockPlatform
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

    /// A source named by its address prints it once (`127.0.0.1:123 (127.0.0.1:123)` before), in
    /// its description and in a failed sync's reason; a named one with the address it resolved to.
    @Test func aSourceNamedByItsAddressPrintsItOnce() throws {
        let loopback = try #require(SocketAddress(numericHost: "127.0.0.1", port: 123))
        let documentation = try #require(SocketAddress(numericHost: "192.0.2.1", port: 123))
        let numeric = SyncReport.Server(
            server: ServerName(host: "127.0.0.1", port: 123), address: loopback, status: .timeout,
            reason: "no reply (timed out)")
        let named = SyncReport.Server(
            server: ServerName(host: "ntp.example"), address: documentation, status: .timeout,
            reason: "no reply (timed out)")
        #expect(numeric.description == "127.0.0.1:123: timeout, no reply (timed out)")
        #expect(named.description == "ntp.example (192.0.2.1:123): timeout, no reply (timed out)")
        #expect(
            SyncError.noUsableSource([numeric, named]).reason
                == "no usable time source: 127.0.0.1:123: no reply (timed out); ntp.example (192.0.2.1:123):"
                + " no reply (timed out)")
    }
}
