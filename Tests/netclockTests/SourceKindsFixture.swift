import Foundation
import HTTPTime
import NetClockPlatform
import SNTP
import TimeValues

@testable import NetworkClock
@testable import Roughtime
@testable import SNTP

/// The source kinds the first golden fixture lacks: an NTS server, an `https://` URL and the
/// Roughtime servers (one of each status the JSON prints), in a sync whose certificates were checked
/// against Roughtime's time, and in a failed one.
enum SourceKindsFixture {
    typealias Fixture = JSONContractFixture

    static let keAddress = SocketAddress(ipv4: (127, 0, 0, 1), port: 14460)
    static let ntsAddress = SocketAddress(ipv4: (127, 0, 0, 1), port: 11126)
    static let wall = UnixTime(seconds: Fixture.unixSeconds, nanoseconds: 250_000_000)
    static let instant = MonotonicInstant(sinceOrigin: .seconds(100))

    /// The NTS association after a key exchange this round.
    static var ntsDetails: NTSSourceDetails {
        var details = NTSSourceDetails(keyExchangeAddress: keAddress, aead: 15, cookies: 7, keyExchanges: 1)
        details.certificateTime = .at(secondsSince1970: Fixture.unixSeconds)
        return details
    }

    /// The NTS server's burst: one sample.
    static var ntsQuery: ServerQueryResult {
        ServerQueryResult(
            address: ntsAddress,
            exchanges: [
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x9999), sentAt: Fixture.sentAt(0),
                    outcome: .sample(Fixture.sample), rejected: [])
            ], mapping: Fixture.mapping)
    }

    static let httpsURL = URL(string: "https://127.0.0.1:18443/") ?? URL(fileURLWithPath: "/")

    /// Four Roughtime servers: one agreed, one falseticker, one that never answered, one whose
    /// replies were refused; the first one's signed time is the agreement.
    static var roughtime: RoughtimeQueryResult {
        var agreed = RoughtimeServerReport(name: "rt-a", status: .agreed)
        agreed.address = "127.0.0.1:12002"
        agreed.version = .rfc
        agreed.midpoint = UnixTime(seconds: Fixture.unixSeconds + 2)
        agreed.radius = .seconds(1)
        agreed.roundTrip = .milliseconds(30)
        var liar = RoughtimeServerReport(name: "rt-b", status: .falseticker)
        liar.address = "127.0.0.1:12003"
        liar.version = .google
        liar.midpoint = UnixTime(seconds: Fixture.unixSeconds + 3_600)
        liar.radius = .seconds(1)
        liar.roundTrip = .milliseconds(40)
        let silent = RoughtimeServerReport(name: "rt-c", status: .timedOut)
        var refused = RoughtimeServerReport(
            name: "rt-d",
            status: .rejected(RoughtimeError(.badResponseSignature, "the response signature does not verify"))
        )
        refused.address = "127.0.0.1:12005"
        let interval = TrueTimeInterval(
            earliest: wall + .seconds(1), latest: wall + .seconds(3), instant: instant)
        let agreement = RoughtimeAgreement(
            interval: interval, wall: wall, agreeing: [0], falsetickers: [1], valid: 2)
        return RoughtimeQueryResult(
            servers: [agreed, liar, silent, refused], agreement: .success(agreement), chain: RoughtimeChain())
    }

    /// The NTS server, selected.
    static var nts: SyncReport.Server {
        var report = SyncReport.Server(
            server: .nts("127.0.0.1", port: 14460), address: ntsAddress, status: .selected, query: ntsQuery)
        report.ntp?.nts = ntsDetails
        return report
    }

    /// An `https://` URL that timed out.
    static var https: SyncReport.Server {
        SyncReport.Server(url: httpsURL, error: HTTPTimeError(.timeout, "no response before the deadline"))
    }

    /// The successful sync: the NTS server's time, certificates checked against Roughtime's.
    static var report: SyncReport {
        var report = SyncReport(
            trueTime: wall, monotonic: instant, errorBound: .microseconds(125), offset: Fixture.sample.offset,
            delay: Fixture.sample.delay, source: .ntp, server: "127.0.0.1:14460 (127.0.0.1:11126)",
            servers: [nts, https], elapsed: .milliseconds(12))
        report.isAuthenticated = true
        report.certificateCheck = .roughtime
        report.roughtime = SyncReport.RoughtimeSummary(roughtime)
        report.servers += roughtime.servers.map(SyncReport.Server.init)
        return report
    }

    /// The failed sync: the NTS server timed out as well.
    static var failure: SyncError {
        var silent = nts
        silent.status = .timeout
        silent.reason = "no reply (timed out)"
        let base = SyncError.noUsableSource([silent, https])
        var error = SyncError(
            code: base.code, reason: base.reason,
            servers: base.servers + roughtime.servers.map(SyncReport.Server.init),
            roughtime: SyncReport.RoughtimeSummary(roughtime))
        error.certificateCheck = .roughtime
        return error
    }
}
