import Foundation
import HTTPTime
import NetClockPlatform
import SNTP
import TimeValues

@testable import ClockCore
@testable import NetworkClock
@testable import SNTP

/// A fixed sync for the `--json` contract tests: every source status and sample shape the JSON
/// knows, with timestamps whose binary fractions are exact in decimal, so each expected number is
/// one literal.
enum JSONContractFixture {
    /// 2026-11-30T12:00:00Z.
    static let unixSeconds: Int64 = 1_796_040_000
    /// The same second on the NTP time line (0xeeb7e3c0).
    static let ntpSeconds = UInt32(unixSeconds + 2_208_988_800)

    static func ntp(_ secondsAfter: UInt32, _ fraction: UInt32) -> NTPTimestamp {
        NTPTimestamp(seconds: ntpSeconds + secondsAfter, fraction: fraction)
    }

    static let address = SocketAddress(ipv4: (127, 0, 0, 1), port: 11123)
    static let silentAddress = SocketAddress(ipv4: (127, 0, 0, 1), port: 11124)
    static let kissAddress = SocketAddress(ipv4: (127, 0, 0, 1), port: 11125)

    /// T1 = …0.5, T2 = …2.000244140625, T3 = …2.00048828125, T4 = …0.5009765625: offset
    /// 1.4998779296875 s, delay 0.000732421875 s.
    static let t1 = ntp(0, 0x8000_0000)
    static let t2 = ntp(2, 0x0010_0000)
    static let t3 = ntp(2, 0x0020_0000)
    static let t4 = ntp(0, 0x8040_0000)

    static let reply = NTPPacket(
        leap: .noWarning, mode: .server, stratum: NTPPacket.Stratum(rawValue: 2),
        precision: NTPPacket.Log2Seconds(rawValue: -20),
        rootDelay: NTPPacket.ShortFormat(rawValue: 0x0000_0800),
        rootDispersion: NTPPacket.ShortFormat(rawValue: 0x0000_0010),
        referenceID: NTPPacket.ReferenceID(rawValue: 0x7F7F_0101),
        originTimestamp: NTPTimestamp(rawValue: 0x1111),
        receiveTimestamp: t2, transmitTimestamp: t3)

    static let sample = NTPSample(
        server: address, t1: t1, reply: reply, t4: t4,
        receivedAt: MonotonicInstant(sinceOrigin: .seconds(100)),
        localReceiveTime: t4.unixTime)

    /// A spoofed reply rejected while waiting for the first request.
    static let spoofed = RejectedReply(
        reason: .originMismatch,
        packet: NTPPacket(
            mode: .server, stratum: NTPPacket.Stratum(rawValue: 2), receiveTimestamp: ntp(1, 0x4000_0000),
            transmitTimestamp: ntp(1, 0xC000_0000)),
        receivedAt: UnixTime(seconds: unixSeconds, nanoseconds: 750_000_000))

    static let mapping = TimeMapping(
        wall: UnixTime(seconds: unixSeconds), monotonic: MonotonicInstant(sinceOrigin: .seconds(99)))

    static func sentAt(_ seconds: Int64) -> UnixTime {
        UnixTime(seconds: unixSeconds + seconds, nanoseconds: 500_000_000)
    }

    /// Selected: a spoofed reply, then a sample; the second request timed out.
    static let selected = SyncReport.Server(
        server: ServerName(host: "127.0.0.1", port: 11123), address: address, status: .selected,
        query: ServerQueryResult(
            address: address,
            exchanges: [
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x1111), sentAt: sentAt(0), outcome: .sample(sample),
                    rejected: [spoofed]),
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x2222), sentAt: sentAt(1), outcome: .timedOut, rejected: []
                ),
            ], mapping: mapping))

    /// No sample: one request timed out, one was refused, one failed, one reply had a negative delay.
    static let silent = SyncReport.Server(
        server: ServerName(host: "127.0.0.1", port: 11124), address: silentAddress, status: .timeout,
        reason: "no reply (timed out)",
        query: ServerQueryResult(
            address: silentAddress,
            exchanges: [
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x3333), sentAt: sentAt(0), outcome: .timedOut, rejected: []
                ),
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x4444), sentAt: sentAt(1),
                    outcome: .rejected(.negativeDelay(.milliseconds(-1))), rejected: []),
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x5555), sentAt: sentAt(2), outcome: .refused, rejected: []),
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x6666), sentAt: sentAt(3),
                    outcome: .failed(.systemCall(operation: "send", errno: .notPermitted, reason: "EPERM")),
                    rejected: []),
            ], mapping: mapping))

    /// A Kiss-o'-Death DENY.
    static let kissed = SyncReport.Server(
        server: ServerName(host: "127.0.0.1", port: 11125), address: kissAddress, status: .kissOfDeath,
        reason: "Kiss-o'-Death DENY",
        query: ServerQueryResult(
            address: kissAddress,
            exchanges: [
                ExchangeRecord(
                    nonce: NTPTimestamp(rawValue: 0x7777), sentAt: sentAt(0),
                    outcome: .rejected(.kissOfDeath(.deny)),
                    rejected: [])
            ], mapping: mapping))

    /// A name that did not resolve: no address, no query.
    static let unresolved = SyncReport.Server(
        server: ServerName(host: "nowhere.invalid"), address: nil, status: .error, reason: "cannot resolve")

    /// An HTTP source that measured: one request with a Date header, one without a response.
    static var httpMeasured: SyncReport.Server {
        let url = URL(string: "http://127.0.0.1:18080/a/b?x=1")
        var report = SyncReport.Server(
            url: url ?? URL(fileURLWithPath: "/"), error: HTTPTimeError(.timeout, "unused"))
        report.status = .selected
        report.reason = nil
        report.errorCode = nil
        let start = MonotonicInstant(sinceOrigin: .seconds(50))
        let received = start + .microseconds(41)
        // Intervals shown as offsets from the local clock's reading at the response.
        let local = UnixTime(seconds: 1_796_040_000)
        let requests = [
            HTTPRequestRecord(
                method: .head, statusCode: 200, sent: start, received: received,
                headerName: "Date",
                headerValue: "Mon, 30 Nov 2026 12:00:00 GMT",
                interval: TrueTimeInterval(
                    earliest: local - .milliseconds(500), latest: local + .milliseconds(500),
                    instant: received),
                combined: TrueTimeInterval(
                    earliest: local - .milliseconds(3), latest: local + .milliseconds(13), instant: received),
                localReceiveTime: local),
            HTTPRequestRecord(
                method: .get, statusCode: nil, sent: start + .milliseconds(250),
                received: start + .milliseconds(750),
                headerName: nil, headerValue: nil, interval: nil, combined: nil, localReceiveTime: local),
        ]
        report.http = SyncReport.Server.HTTP(
            header: "date", requests: requests, offset: .milliseconds(5), errorBound: .milliseconds(8),
            isHTTPS: false)
        return report
    }

    /// An HTTP source that failed.
    static var httpFailed: SyncReport.Server {
        let url = URL(string: "http://127.0.0.1:18081/")
        return SyncReport.Server(
            url: url ?? URL(fileURLWithPath: "/"), error: HTTPTimeError(.transport, "connection refused"))
    }

    /// The successful sync: the selected source's sample, combined to a 125 µs bound.
    static var report: SyncReport {
        SyncReport(
            trueTime: UnixTime(seconds: unixSeconds, nanoseconds: 250_000_000),
            monotonic: MonotonicInstant(sinceOrigin: .seconds(100)), errorBound: .microseconds(125),
            offset: sample.offset, delay: sample.delay, source: .ntp, server: "127.0.0.1:11123",
            servers: [selected, silent, kissed, unresolved, httpMeasured],
            elapsed: .milliseconds(12))
    }

    /// The failed sync.
    static let failure = SyncError.noUsableSource([silent, kissed, unresolved, httpFailed])

    /// `now`: restored from an anchor 2 s old, the wall clock 1.5 s behind.
    static var estimate: TimeEstimate {
        TimeEstimate(
            time: UnixTime(seconds: unixSeconds, nanoseconds: 250_000_000), errorBound: .microseconds(125),
            age: .seconds(2), source: .restored,
            serverIdentifier: ServerNames.identifier(for: "127.0.0.1:11123"),
            isDriftCorrected: true, isAuthenticated: false)
    }

    /// The clock's frequency for `now` and `sync`: measured from 4 syncs over 180 s, −60 ppm ±
    /// 2.5 ppm, reset once before. (The expectations take the ppm values as `FrequencyEstimate`
    /// converts them, to the last bit.)
    static let frequency = FrequencyEstimate(
        frequencyError: -60e-6, growthRate: 2.5e-6, halfWidthAtAnchor: 2e-6, isMeasured: true,
        syncCount: 4, span: .seconds(180), age: .seconds(2), resetCount: 1, lastReset: .frequencyChanged)

    /// The kernel's discipline for `now`: synchronised by a daemon, 0.5 ms still to slew (PLL
    /// 0.25 ms plus 0.25 ms of `adjtime`), values exact in binary so each expected number is exact.
    static let kernel = KernelClockState(
        clockState: 0, status: [.pll, .nanosecondResolution], offset: .microseconds(250),
        singleShotOffset: .microseconds(250), frequencyPPM: -12.5, maximumError: .microseconds(62_500),
        estimatedError: .microseconds(125), tick: .microseconds(10_000))

    /// The wall clock reading for ``estimate``: 1.5 s behind the true time.
    static let wall = UnixTime(seconds: unixSeconds - 2, nanoseconds: 750_000_000)

    /// ``estimate`` against the system clock reading ``wall`` (what `now` prints).
    static var comparison: NetworkClock.SystemClockOffset {
        NetworkClock.SystemClockOffset(
            trustedTime: estimate,
            reading: NetworkClock.SystemClockReading(
                wall: wall, monotonic: MonotonicInstant(sinceOrigin: .seconds(1))))
    }
}
