import Foundation
import Testing
import TimeValues

@testable import NetclockCLI
@testable import NetworkClock

/// The golden `--json` lines and text of ``SourceKindsFixture``, recorded before every source kind
/// shared one report shape (``SyncReport/Server``): the contract for NTS, `https://` and Roughtime
/// entries, byte for byte.
@Suite struct JSONContractSourceKindsTests {
    typealias Fixture = SourceKindsFixture

    @Test func successLineIsUnchanged() {
        let line = JSONOutput.line(SyncReportJSON(Fixture.report, malfeasanceReport: "/tmp/proof.json"))
        #expect(line == Self.successLine)
    }

    @Test func failureLineIsUnchanged() {
        let line = JSONOutput.line(SyncFailureJSON(Fixture.failure, malfeasanceReport: "/tmp/proof.json"))
        #expect(line == Self.failureLine)
    }

    @Test func textIsUnchanged() {
        #expect(ReportText.report(Fixture.report) == Self.text)
        #expect(Fixture.failure.reason == Self.failureReason)
        #expect(Fixture.report.description == Self.description)
    }

    @Test func everyServerIsOneShapeInOneList() {
        let servers = Fixture.report.servers
        #expect(
            servers.map(\.name) == [
                "127.0.0.1:14460", "https://127.0.0.1:18443/", "rt-a", "rt-b", "rt-c", "rt-d",
            ])
        #expect(servers.map(\.kind) == [.nts, .https, .roughtime, .roughtime, .roughtime, .roughtime])
        #expect(servers.map(\.status) == [.selected, .error, .agreed, .falseticker, .timedOut, .rejected])
        #expect(servers.map(\.isAuthenticated) == [true, false, true, true, false, false])
        #expect(
            servers.map(\.address) == [
                "127.0.0.1:11126", nil, "127.0.0.1:12002", "127.0.0.1:12003", nil, "127.0.0.1:12005",
            ])
        // The NTS server's interval is its one sample's: offset ± its error bound, exactly.
        #expect(servers[0].offset == JSONContractFixture.sample.offset)
        #expect(servers[0].errorBound == JSONContractFixture.sample.errorBound)
        #expect(servers[1].errorCode == "timeout" && servers[1].offset == nil)
        guard case .roughtime(let reply) = servers[2].details else {
            Issue.record("rt-a should carry Roughtime details, got \(servers[2].details)")
            return
        }
        #expect(
            reply.midpoint == UnixTime(seconds: JSONContractFixture.unixSeconds + 2)
                && reply.radius == .seconds(1))
        #expect(Fixture.report.roughtime?.agreedOffsets == .seconds(1)...(.seconds(3)))
    }

    @Test func metricsAreUnchanged() {
        var metrics = WatchMetrics()
        metrics.record(Fixture.report)
        var text = metrics.text(clock: nil, frequency: nil) + "\nNEXT\n"
        metrics.record(Fixture.failure)
        metrics.record(JSONContractFixture.report)
        text += metrics.text(clock: nil, frequency: nil) + "\nNEXT\n"
        metrics.record(JSONContractFixture.failure)
        text += metrics.text(clock: nil, frequency: nil)
        #expect(text == Self.metrics)
    }

    static let successLine =
        #"{"authenticated":true,"certificate_time":"roughtime","certificate_warnings":[],"delay":0.000732421875,"downgrade":null,"elapsed":0.012,"error_bound":0.000125,"http":[{"certificate_time":"roughtime","error_bound":null,"error_code":"timeout","kind":null,"offset":null,"reason":"timeout: no response before the deadline","requests":[],"status":"error","url":"https://127.0.0.1:18443/"}],"leap":{"at":"2026-12-01T00:00:00Z","disagreeing":[],"kind":"unknown","mode":"step","table_note":null},"offset":1.4998779296875,"packets_sent":1,"roughtime":{"agreed":[1,3],"error":null,"liars":["rt-b"],"malfeasance_report":"/tmp/proof.json","servers":[{"address":"127.0.0.1:12002","midpoint":1796040002,"name":"rt-a","radius":1,"reason":null,"round_trip":0.03,"status":"agreed","version":"RFC 10049"},{"address":"127.0.0.1:12003","midpoint":1796043600,"name":"rt-b","radius":1,"reason":null,"round_trip":0.04,"status":"falseticker","version":"Google-Roughtime"},{"address":null,"midpoint":null,"name":"rt-c","radius":null,"reason":null,"round_trip":null,"status":"timed_out","version":null},{"address":"127.0.0.1:12005","midpoint":null,"name":"rt-d","radius":null,"reason":"bad_response_signature: the response signature does not verify","round_trip":null,"status":"rejected","version":null}]},"server":"127.0.0.1:14460 (127.0.0.1:11126)","servers":[{"address":"127.0.0.1:11126","authenticated":true,"delay":0.000732421875,"error_bound":0.016236318236816406,"estimate":"min-delay","host":"127.0.0.1:14460","interval":[1.4836416114506836,1.5161142479243164],"jitter":0,"leap":"none","nts":{"aead":15,"certificate_time":"roughtime","cookies":7,"ke_server":"127.0.0.1:14460","key_exchanges":1,"ntp_server":"127.0.0.1:11126"},"offset":1.4998779296875,"precision":-20,"reason":null,"refid":"127.127.1.1","rejected_replies":0,"root_delay":0.03125,"root_dispersion":0.000244140625,"samples":[{"accepted":true,"delay":0.000732421875,"error_bound":0.016236318236816406,"offset":1.4998779296875,"reason":null,"t1":1796040000.5,"t1_ntp":"eeb7e3c0.80000000","t2":1796040002.0002441,"t2_ntp":"eeb7e3c2.00100000","t3":1796040002.0004883,"t3_ntp":"eeb7e3c2.00200000","t4":1796040000.5009766,"t4_ntp":"eeb7e3c0.80400000"}],"status":"selected","stratum":2}],"source":"ntp","time":"2026-11-30T12:00:00.250000Z","unix":1796040000.25}"#

    static let failureLine =
        #"{"authenticated":false,"certificate_time":"roughtime","downgrade":null,"error":"no usable time source: 127.0.0.1:14460 (127.0.0.1:11126): no reply (timed out); https://127.0.0.1:18443/: timeout: no response before the deadline","http":[{"certificate_time":"roughtime","error_bound":null,"error_code":"timeout","kind":null,"offset":null,"reason":"timeout: no response before the deadline","requests":[],"status":"error","url":"https://127.0.0.1:18443/"}],"roughtime":{"agreed":[1,3],"error":null,"liars":["rt-b"],"malfeasance_report":"/tmp/proof.json","servers":[{"address":"127.0.0.1:12002","midpoint":1796040002,"name":"rt-a","radius":1,"reason":null,"round_trip":0.03,"status":"agreed","version":"RFC 10049"},{"address":"127.0.0.1:12003","midpoint":1796043600,"name":"rt-b","radius":1,"reason":null,"round_trip":0.04,"status":"falseticker","version":"Google-Roughtime"},{"address":null,"midpoint":null,"name":"rt-c","radius":null,"reason":null,"round_trip":null,"status":"timed_out","version":null},{"address":"127.0.0.1:12005","midpoint":null,"name":"rt-d","radius":null,"reason":"bad_response_signature: the response signature does not verify","round_trip":null,"status":"rejected","version":null}]},"servers":[{"address":"127.0.0.1:11126","authenticated":true,"delay":0.000732421875,"error_bound":0.016236318236816406,"estimate":"min-delay","host":"127.0.0.1:14460","interval":[1.4836416114506836,1.5161142479243164],"jitter":0,"leap":"none","nts":{"aead":15,"certificate_time":"roughtime","cookies":7,"ke_server":"127.0.0.1:14460","key_exchanges":1,"ntp_server":"127.0.0.1:11126"},"offset":1.4998779296875,"precision":-20,"reason":"no reply (timed out)","refid":"127.127.1.1","rejected_replies":0,"root_delay":0.03125,"root_dispersion":0.000244140625,"samples":[{"accepted":true,"delay":0.000732421875,"error_bound":0.016236318236816406,"offset":1.4998779296875,"reason":null,"t1":1796040000.5,"t1_ntp":"eeb7e3c0.80000000","t2":1796040002.0002441,"t2_ntp":"eeb7e3c2.00100000","t3":1796040002.0004883,"t3_ntp":"eeb7e3c2.00200000","t4":1796040000.5009766,"t4_ntp":"eeb7e3c0.80400000"}],"status":"timeout","stratum":2}]}"#

    static let text = #"""
        127.0.0.1:11126 [NTS, authenticated]  offset +1.499878s  delay 732.4µs  ±16.236ms  stratum 2  refid 127.127.1.1  leap none  (1/1 samples, jitter 0.000ms)  selected
        https://127.0.0.1:18443/  error  timeout: no response before the deadline
        roughtime rt-a (127.0.0.1:12002): agreed 2026-11-30T12:00:02Z ± 1.000000s
        roughtime rt-b (127.0.0.1:12003): falseticker 2026-11-30T13:00:00Z ± 1.000000s
        roughtime rt-c: timed_out
        roughtime rt-d (127.0.0.1:12005): rejected (bad_response_signature: the response signature does not verify)
        roughtime: offset +2.000000s ± 1.000000s (1 of 4 servers agree); liars: rt-b
        certificates checked against Roughtime's signed time
        time 2026-11-30T12:00:00.250000Z  offset +1.499878s ± 125.0µs  (ntp, 127.0.0.1:14460 (127.0.0.1:11126), authenticated)
        """#

    static let failureReason =
        #"no usable time source: 127.0.0.1:14460 (127.0.0.1:11126): no reply (timed out); https://127.0.0.1:18443/: timeout: no response before the deadline"#

    static let description =
        #"2026-11-30T12:00:00.250000Z, local clock -1.499878s ± 125.0µs (ntp, 127.0.0.1:14460 (127.0.0.1:11126), 1 of 1 sources agree, authenticated)"#

    static let metrics = #"""
        # HELP netclock_last_sync_timestamp_seconds True time of the last successful round, seconds since 1970.
        # TYPE netclock_last_sync_timestamp_seconds gauge
        netclock_last_sync_timestamp_seconds 1796040000.25
        # HELP netclock_sync_successes_total Rounds that gave a time.
        # TYPE netclock_sync_successes_total counter
        netclock_sync_successes_total 1
        # HELP netclock_sync_failures_total Rounds that gave no time.
        # TYPE netclock_sync_failures_total counter
        netclock_sync_failures_total 0
        # HELP netclock_server_offset_seconds A source's offset in the last round (true time minus this system's clock).
        # TYPE netclock_server_offset_seconds gauge
        netclock_server_offset_seconds{server="127.0.0.1:14460",address="127.0.0.1:11126",kind="nts"} 1.4998779296875
        # HELP netclock_server_delay_seconds A source's round-trip delay in the last round.
        # TYPE netclock_server_delay_seconds gauge
        netclock_server_delay_seconds{server="127.0.0.1:14460",address="127.0.0.1:11126",kind="nts"} 0.000732421875
        netclock_server_delay_seconds{server="rt-a",address="127.0.0.1:12002",kind="roughtime"} 0.03
        netclock_server_delay_seconds{server="rt-b",address="127.0.0.1:12003",kind="roughtime"} 0.04
        # HELP netclock_server_status 1 for each source of the last round, its status (selected, survivor, timeout, ...) as a label.
        # TYPE netclock_server_status gauge
        netclock_server_status{server="127.0.0.1:14460",address="127.0.0.1:11126",kind="nts",status="selected"} 1
        netclock_server_status{server="https://127.0.0.1:18443/",address="",kind="http",status="error"} 1
        netclock_server_status{server="rt-a",address="127.0.0.1:12002",kind="roughtime",status="agreed"} 1
        netclock_server_status{server="rt-b",address="127.0.0.1:12003",kind="roughtime",status="falseticker"} 1
        netclock_server_status{server="rt-c",address="",kind="roughtime",status="timed_out"} 1
        netclock_server_status{server="rt-d",address="127.0.0.1:12005",kind="roughtime",status="rejected"} 1

        NEXT
        # HELP netclock_last_sync_timestamp_seconds True time of the last successful round, seconds since 1970.
        # TYPE netclock_last_sync_timestamp_seconds gauge
        netclock_last_sync_timestamp_seconds 1796040000.25
        # HELP netclock_sync_successes_total Rounds that gave a time.
        # TYPE netclock_sync_successes_total counter
        netclock_sync_successes_total 2
        # HELP netclock_sync_failures_total Rounds that gave no time.
        # TYPE netclock_sync_failures_total counter
        netclock_sync_failures_total 1
        # HELP netclock_server_offset_seconds A source's offset in the last round (true time minus this system's clock).
        # TYPE netclock_server_offset_seconds gauge
        netclock_server_offset_seconds{server="127.0.0.1:11123",address="127.0.0.1:11123",kind="ntp"} 1.4998779296875
        netclock_server_offset_seconds{server="http://127.0.0.1:18080/a/b?x=1",address="",kind="http"} 0.005
        # HELP netclock_server_delay_seconds A source's round-trip delay in the last round.
        # TYPE netclock_server_delay_seconds gauge
        netclock_server_delay_seconds{server="127.0.0.1:11123",address="127.0.0.1:11123",kind="ntp"} 0.000732421875
        # HELP netclock_server_status 1 for each source of the last round, its status (selected, survivor, timeout, ...) as a label.
        # TYPE netclock_server_status gauge
        netclock_server_status{server="127.0.0.1:11123",address="127.0.0.1:11123",kind="ntp",status="selected"} 1
        netclock_server_status{server="127.0.0.1:11124",address="127.0.0.1:11124",kind="ntp",status="timeout"} 1
        netclock_server_status{server="127.0.0.1:11125",address="127.0.0.1:11125",kind="ntp",status="kod"} 1
        netclock_server_status{server="nowhere.invalid",address="",kind="ntp",status="error"} 1
        netclock_server_status{server="http://127.0.0.1:18080/a/b?x=1",address="",kind="http",status="selected"} 1

        NEXT
        # HELP netclock_last_sync_timestamp_seconds True time of the last successful round, seconds since 1970.
        # TYPE netclock_last_sync_timestamp_seconds gauge
        netclock_last_sync_timestamp_seconds 1796040000.25
        # HELP netclock_sync_successes_total Rounds that gave a time.
        # TYPE netclock_sync_successes_total counter
        netclock_sync_successes_total 2
        # HELP netclock_sync_failures_total Rounds that gave no time.
        # TYPE netclock_sync_failures_total counter
        netclock_sync_failures_total 2
        # HELP netclock_server_status 1 for each source of the last round, its status (selected, survivor, timeout, ...) as a label.
        # TYPE netclock_server_status gauge
        netclock_server_status{server="127.0.0.1:11124",address="127.0.0.1:11124",kind="ntp",status="timeout"} 1
        netclock_server_status{server="127.0.0.1:11125",address="127.0.0.1:11125",kind="ntp",status="kod"} 1
        netclock_server_status{server="nowhere.invalid",address="",kind="ntp",status="error"} 1
        netclock_server_status{server="http://127.0.0.1:18081/",address="",kind="http",status="error"} 1

        """#
}
