import Foundation
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import NetclockCLI
@testable import NetworkClock
@testable import SNTP

/// The `--json` contract for a source whose own samples contradict each other: `status`
/// `"inconsistent"`, the reason naming both samples, `estimate` and `interval` `null`, and every
/// other field as for any source with samples (the minimum-delay sample's figures).
@Suite struct JSONContractInconsistentTests {
    typealias Fixture = JSONContractFixture

    /// The fixture's sample, then the same exchange one second later from a server whose clock
    /// stepped 1 s forward: T1, T4 and the monotonic instant move 1 s, T2 and T3 move 2 s.
    static let stepped: NTPSample = {
        var reply = Fixture.reply
        reply.receiveTimestamp = Fixture.ntp(4, 0x0010_0000)
        reply.transmitTimestamp = Fixture.ntp(4, 0x0020_0000)
        return NTPSample(
            server: Fixture.address, t1: Fixture.ntp(1, 0x8000_0000), reply: reply,
            t4: Fixture.ntp(1, 0x8040_0000), receivedAt: MonotonicInstant(sinceOrigin: .seconds(101)),
            localReceiveTime: Fixture.ntp(1, 0x8040_0000).unixTime)
    }()

    static var report: SyncReport.Server {
        let query = ServerQueryResult(
            address: Fixture.address,
            exchanges: [
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x1111), sentAt: Fixture.sentAt(0),
                    outcome: .sample(Fixture.sample), rejected: []),
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x2222), sentAt: Fixture.sentAt(1),
                    outcome: .sample(stepped),
                    rejected: []),
            ], mapping: Fixture.mapping)
        guard case .failure(let inconsistency) = query.estimate else {
            Issue.record("the fixture burst should be inconsistent")
            return SyncReport.Server(
                server: ServerName(host: "127.0.0.1", port: 11123), address: nil, status: .error)
        }
        return SyncReport.Server(
            server: ServerName(host: "127.0.0.1", port: 11123), address: Fixture.address,
            status: .inconsistent,
            reason: inconsistency.description, query: query)
    }

    @Test func anInconsistentSourceHasNullEstimateAndInterval() throws {
        let report = Self.report
        let line = JSONOutput.line(SourceJSON(report, try #require(report.ntp)))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["status"] as? String == "inconsistent")
        let reason = try #require(json["reason"] as? String)
        #expect(reason.hasPrefix("requests 1 and 2 of the burst contradict each other: offset +1.499878s"))
        #expect(json["estimate"] is NSNull)
        #expect(json["interval"] is NSNull)
        // The minimum-delay sample's figures stay (both samples have the same delay: the first).
        #expect(json["offset"] as? Double == 1.4998779296875)
        #expect(json["delay"] as? Double == 0.000732421875)
        #expect((json["samples"] as? [Any])?.count == 2)
        #expect(
            json.keys.sorted() == [
                "address", "authenticated", "delay", "error_bound", "estimate", "host", "interval", "jitter",
                "leap", "offset",
                "precision", "reason", "refid", "rejected_replies", "root_delay", "root_dispersion",
                "samples",
                "status",
                "stratum",
            ])
    }
}
