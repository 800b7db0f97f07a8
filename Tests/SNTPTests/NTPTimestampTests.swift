import NetClockPlatform
import Testing
import TimeValues

@testable import SNTP

/// Exact conversions and era arithmetic of the 32.32 NTP timestamp.
struct NTPTimestampTests {
    @Test func unixEpochIsSecond2208988800() {
        let stamp = NTPTimestamp(UnixTime.epoch)
        #expect(stamp.seconds == 2_208_988_800)
        #expect(stamp.fraction == 0)
        #expect(stamp.unixTime == .epoch)
    }

    @Test func era1StartsOn2036February7() {
        // 2036-02-07T06:28:16Z is 2³² s after 1900: era 1, second 0.
        let days = CivilDate.days(year: 2036, month: 2, day: 7)
        let instant = UnixTime(seconds: days * 86_400 + 6 * 3600 + 28 * 60 + 16)
        let stamp = NTPTimestamp(instant)
        #expect(stamp.rawValue == 0)
        #expect(stamp.pivotEra == 1)
        #expect(stamp.unixTime == instant)
        #expect(instant.description == "2036-02-07T06:28:16.000000000Z")
    }

    @Test func halfSecondFraction() {
        let stamp = NTPTimestamp(seconds: 3_000_000_000, fraction: 0x8000_0000)
        #expect(stamp.fractionDuration == .milliseconds(500))
        #expect(stamp.unixTime.nanoseconds == 500_000_000)
    }

    @Test func pivotRuleSplitsTheErasAtTheTopBit() {
        // Seconds 0x80000000 (1968-01-20) is the earliest era-0 instant; 0x7FFFFFFF the latest era-1.
        let earliest = NTPTimestamp(seconds: 0x8000_0000, fraction: 0).unixTime
        #expect(earliest.description.hasPrefix("1968-01-20T03:14:08"))
        let latest = NTPTimestamp(seconds: 0x7FFF_FFFF, fraction: 0).unixTime
        #expect(latest.description.hasPrefix("2104-02-26T09:42:23"))
    }

    @Test func nearestEraFollowsTheReference() {
        let reference = UnixTime(seconds: 2_085_978_496 + 100)  // 100 s after the era-1 boundary
        let justBefore = NTPTimestamp(reference - .seconds(200))
        #expect(justBefore.unixTime(near: reference) == reference - .seconds(200))
        let oneYearLater = NTPTimestamp(reference + .seconds(31_536_000))
        #expect(oneYearLater.unixTime(near: reference) == reference + .seconds(31_536_000))
    }

    @Test func differencesWrapAcrossTheEraBoundary() {
        let t1 = NTPTimestamp(rawValue: 0xFFFF_FFFF_E666_6666)
        let t2 = NTPTimestamp(rawValue: 0x0000_0000_3333_3333)
        let t3 = t2
        let t4 = NTPTimestamp(rawValue: 0x0000_0000_0CCC_CCCC)
        let offset = ((t2 - t1) + (t3 - t4)) / 2
        let delay = (t4 - t1) - (t3 - t2)
        // The fractions are 2⁻³²-rounded decimals, so allow 1 ns.
        #expect(abs(offset - .milliseconds(225)) < .nanoseconds(1))
        #expect(abs(delay - .milliseconds(150)) < .nanoseconds(1))
    }

    @Test func negativeDifferences() {
        let a = NTPTimestamp(seconds: 10, fraction: 0)
        let b = NTPTimestamp(seconds: 12, fraction: 0x4000_0000)
        #expect(a - b == .zero - .milliseconds(2250))
        #expect(b - a == .milliseconds(2250))
    }

    @Test(arguments: [
        UnixTime(seconds: 1_796_004_667, nanoseconds: 341_740_800),
        UnixTime(seconds: 0, nanoseconds: 1),
        UnixTime(seconds: -1, nanoseconds: 999_999_999),
        UnixTime(seconds: 2_085_978_495, nanoseconds: 999_999_999),
        UnixTime(seconds: 4_000_000_000, nanoseconds: 123_456_789),
    ])
    func roundTripIsExactToTheNanosecond(time: TimeValues.UnixTime) {
        let back = NTPTimestamp(time).unixTime(near: time)
        // 2⁻³² s ≈ 0.23 ns resolution, rounded to nearest: error ≤ 0.12 ns.
        #expect(abs(back - time) <= .nanoseconds(1) / 8)
    }

    @Test func roundingUpToTheNextSecond() {
        // 999 999 999.9 ns rounds to fraction 2³², which carries into the seconds.
        let time = UnixTime(sinceEpoch: .seconds(5) - Duration(secondsComponent: 0, attosecondsComponent: 10))
        let stamp = NTPTimestamp(time)
        #expect(stamp.fraction == 0)
        #expect(stamp.seconds == UInt32(2_208_988_805))
    }

    @Test func addingDurationsWraps() {
        let nearEnd = NTPTimestamp(seconds: 0xFFFF_FFFF, fraction: 0x8000_0000)
        let later = nearEnd + .seconds(1)
        #expect(later.seconds == 0)
        #expect(later.fraction == 0x8000_0000)
        #expect(later - nearEnd == .seconds(1))
    }

    @Test func shortFormat() {
        #expect(NTPPacket.ShortFormat(rawValue: 0x0001_8000).duration == .milliseconds(1500))
        #expect(NTPPacket.ShortFormat(roundingUp: .milliseconds(1500)).rawValue == 0x0001_8000)
        #expect(NTPPacket.ShortFormat(roundingUp: .nanoseconds(1)).rawValue == 1)
        #expect(NTPPacket.ShortFormat(roundingUp: .seconds(100_000)).rawValue == .max)
        #expect(NTPPacket.ShortFormat(roundingUp: .zero - .seconds(1)).rawValue == 0)
    }

    @Test func log2Seconds() {
        #expect(NTPPacket.Log2Seconds(rawValue: 0).duration == .seconds(1))
        #expect(NTPPacket.Log2Seconds(rawValue: 6).duration == .seconds(64))
        #expect(NTPPacket.Log2Seconds(rawValue: -1).duration == .milliseconds(500))
        #expect(NTPPacket.Log2Seconds(rawValue: -20).duration >= .nanoseconds(953))
        #expect(NTPPacket.Log2Seconds(rawValue: -20).duration <= .nanoseconds(954))
        #expect(NTPPacket.Log2Seconds(rawValue: -128).duration == .zero)
        #expect(NTPPacket.Log2Seconds(rawValue: 127).duration == .seconds(Int64(1) << 62))
    }

    @Test func iso8601() {
        #expect(ISO8601.format(UnixTime(seconds: 951_782_400), fractionDigits: 0) == "2000-02-29T00:00:00Z")
        #expect(
            ISO8601.format(UnixTime(seconds: -1, nanoseconds: 500_000_000), fractionDigits: 3)
                == "1969-12-31T23:59:59.500Z")
        #expect(CivilDate.fromDays(CivilDate.days(year: 2024, month: 12, day: 31)) == (2024, 12, 31))
    }
}
