import Roughtime
import SNTP
import Testing
import TimeValues

@testable import ClockCore
@testable import NetworkClock

/// Every public `description` that prints a time prints it as strict ISO 8601 (RFC 3339, UTC)
/// that parses back to the value described, truncated to the digits shown: `SyncReport` once
/// printed `…121866ZZ`, appending a `Z` to what ``ISO8601/format(_:fractionDigits:)`` had ended
/// with one.
///
/// The public descriptions with a time (from `grep 'var description' Sources`): `UnixTime`,
/// `NTPPacket` (its transmit time), `TimeEstimate`, `SyncReport`, `ClockTick`, `RestoredAnchor`,
/// `ClockEvent` (`synced`, `restored`) and `SyncReport.Server` (a Roughtime server). The others print
/// names, codes, durations or reasons only.
struct DescriptionTimeTests {
    /// An instant with every one of its nine fraction digits set.
    static let instant = UnixTime(seconds: 1_796_282_706, nanoseconds: 121_866_789)

    /// The ISO 8601 timestamps in `text`, parsed. Each run that starts like a date (`dddd-dd-ddT`)
    /// must be a whole `YYYY-MM-DDThh:mm:ss[.fraction]Z`, ended by the text's end, a space, `,` or
    /// `)`; anything else (`…ZZ`, a missing `Z`, a 61st second) is recorded as a failure.
    static func timestamps(in text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UnixTime] {
        var times: [UnixTime] = []
        for match in text.matches(of: /\d{4}-\d{2}-\d{2}T/) {
            let token = text[match.range.lowerBound...].prefix { !" ,)".contains($0) }
            guard let time = strictISO8601(token) else {
                Issue.record(
                    "not a strict ISO 8601 time: '\(token)' in '\(text)'", sourceLocation: sourceLocation)
                continue
            }
            times.append(time)
        }
        return times
    }

    /// `YYYY-MM-DDThh:mm:ss[.f…]Z` (1–9 fraction digits) as the instant it names; nil for anything
    /// else, out-of-range fields included.
    static func strictISO8601(_ text: Substring) -> UnixTime? {
        let pattern = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z/
        guard let match = try? pattern.wholeMatch(in: text),
            let year = Int64(match.1), let month = Int(match.2), let day = Int(match.3),
            let hour = Int64(match.4), let minute = Int64(match.5), let second = Int64(match.6),
            (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var nanoseconds: Int64 = 0
        if let fraction = match.7 {
            nanoseconds = Int64(fraction + String(repeating: "0", count: 9 - fraction.count)) ?? 0
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        return UnixTime(seconds: days * 86_400 + hour * 3600 + minute * 60 + second, nanoseconds: nanoseconds)
    }

    /// `time` truncated to `digits` fraction digits, as the formatter prints it.
    static func truncated(_ time: UnixTime, digits: Int) -> UnixTime {
        var unit: Int64 = 1
        for _ in 0..<(9 - digits) { unit *= 10 }
        return UnixTime(seconds: time.seconds, nanoseconds: time.nanoseconds / unit * unit)
    }

    static var estimate: TimeEstimate {
        TimeEstimate(
            time: instant, errorBound: .nanoseconds(1_196_931), age: .milliseconds(25), source: .ntp,
            serverIdentifier: ServerNames.identifier(for: "time.example.com"), isDriftCorrected: false,
            isAuthenticated: false)
    }

    static var report: SyncReport {
        SyncReport(
            trueTime: instant, monotonic: MonotonicInstant(sinceOrigin: .seconds(100)),
            errorBound: .nanoseconds(1_196_931), offset: .milliseconds(-3_250), delay: .milliseconds(2),
            source: .ntp, server: "time.example.com", servers: [], elapsed: .milliseconds(40))
    }

    static var restored: RestoredAnchor {
        RestoredAnchor(
            anchor: Anchor(
                trueTime: instant, monotonic: MonotonicInstant(sinceOrigin: .seconds(100)),
                errorBound: .microseconds(140), source: .restored, server: "time.example.com"),
            originalSource: .ntp, bootID: "boot", writtenAt: instant,
            writtenAtMonotonic: MonotonicInstant(sinceOrigin: .seconds(101)))
    }

    @Test func unixTime() {
        #expect(Self.timestamps(in: Self.instant.description) == [Self.instant])
    }

    @Test func ntpPacket() {
        let packet = NTPPacket(
            mode: .server, stratum: NTPPacket.Stratum(rawValue: 2),
            transmitTimestamp: NTPTimestamp(Self.instant))
        let transmit = Self.truncated(packet.transmitTimestamp.unixTime, digits: 6)
        #expect(Self.timestamps(in: packet.description) == [transmit], "\(packet)")
    }

    @Test func timeEstimate() {
        let text = Self.estimate.description
        #expect(Self.timestamps(in: text) == [Self.truncated(Self.instant, digits: 6)], "\(text)")
    }

    @Test func syncReportAndItsEvent() {
        let expected = [Self.truncated(Self.instant, digits: 6)]
        #expect(Self.timestamps(in: Self.report.description) == expected, "\(Self.report)")
        let event = ClockEvent.synced(Self.report, anchorReplaced: true)
        #expect(Self.timestamps(in: event.description) == expected, "\(event)")
    }

    @Test func clockTick() {
        let tick = ClockTick(boundary: UnixTime(seconds: Self.instant.seconds), estimate: Self.estimate)
        #expect(Self.timestamps(in: tick.description) == [UnixTime(seconds: Self.instant.seconds)], "\(tick)")
    }

    @Test func restoredAnchorAndItsEvent() {
        let expected = [UnixTime(seconds: Self.instant.seconds)]
        #expect(Self.timestamps(in: Self.restored.description) == expected, "\(Self.restored)")
        let event = ClockEvent.restored(Self.restored)
        #expect(Self.timestamps(in: event.description) == expected, "\(event)")
    }

    @Test func roughtimeServer() {
        let server = SyncReport.Server(
            name: "example", status: .agreed,
            details: .roughtime(
                SyncReport.Server.Roughtime(
                    address: "192.0.2.1:2002", version: "RFC 10049", midpoint: Self.instant,
                    radius: .seconds(1),
                    roundTrip: .milliseconds(30))))
        #expect(
            Self.timestamps(in: server.description) == [UnixTime(seconds: Self.instant.seconds)], "\(server)")
    }

    /// The parser itself refuses what the descriptions once printed, and what they must not.
    @Test(arguments: [
        "2026-12-03T07:05:06.121866ZZ", "2026-12-03T07:05:06.121866", "2026-12-03T07:05:06.Z",
        "2026-02-29T00:00:00Z", "2026-12-03T24:00:00Z", "2026-12-03T07:05:06.1234567890Z",
    ])
    func theStrictParserRefuses(_ text: String) {
        #expect(Self.strictISO8601(Substring(text)) == nil)
    }
}
