@testable import HTTPTime
import LoopbackServers
import Testing
import TimeValues

@Suite struct HTTPDateTests {
    /// 1994-11-06T08:49:37Z, the RFC 9110 example.
    static let example = UnixTime(seconds: 784_111_777)

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", HTTPDate.Format.imfFixdate),
        ("Sunday, 06-Nov-94 08:49:37 GMT", .rfc850),
        ("Sun Nov  6 08:49:37 1994", .asctime),
    ])
    func rfcExampleInAllThreeForms(text: String, format: HTTPDate.Format) throws {
        let date = try HTTPDate(parsing: text, referenceYear: 2026)
        #expect(date.time == Self.example)
        #expect(date.format == format)
    }

    @Test(arguments: [
        ("Thu, 01 Jan 1970 00:00:00 GMT", Int64(0)),
        ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
        ("Thu, 29 Feb 2024 12:00:00 GMT", 1_709_208_000),
        ("Tue, 29 Feb 2000 00:00:00 GMT", 951_782_400),
        ("Tue, 19 Jan 2038 03:14:08 GMT", 2_147_483_648),
        ("Sun, 07 Feb 2106 06:28:16 GMT", 4_294_967_296),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Sat, 01 Jan 0000 00:00:00 GMT", -62_167_219_200),
        ("Wed Dec 31 23:59:59 1969", -1),
        ("Thu Jan 01 00:00:00 1970", 0),
        ("Thu Jan 1 00:00:00 1970", 0),
    ])
    func knownInstants(text: String, seconds: Int64) throws {
        #expect(try HTTPDate(parsing: text, referenceYear: 2026).time == UnixTime(seconds: seconds))
    }

    @Test func leapSecondIsTheFirstInstantOfTheNextDay() throws {
        let leap = try HTTPDate(parsing: "Sat, 31 Dec 2016 23:59:60 GMT", referenceYear: 2026)
        let next = try HTTPDate(parsing: "Sun, 01 Jan 2017 00:00:00 GMT", referenceYear: 2026)
        #expect(leap.time == next.time)
    }

    @Test func lenientAboutCaseWhitespaceAndDayNames() throws {
        let variants = [
            "  sun, 06 NOV 1994 08:49:37 gmt\t",
            "Sunday, 06 Nov 1994 08:49:37 GMT",  // long day name in IMF form
            "Mon, 06 Nov 1994 08:49:37 GMT",  // wrong day of the week
            "Sun, 06-Nov-94 08:49:37 GMT",  // short day name in RFC 850 form
        ]
        for text in variants {
            #expect(try HTTPDate(parsing: text, referenceYear: 2026).time == Self.example, "\(text)")
        }
    }

    @Test(arguments: [
        (Int64(2026), 76, Int64(2076)), (2026, 77, 1977), (2026, 26, 2026), (2026, 0, 2000),
        (2000, 50, 2050), (2000, 51, 1951), (2099, 49, 2149), (2099, 50, 2050), (1999, 0, 2000),
        (2026, 70, 2070), (1990, 70, 1970), (2026, 99, 1999),
    ])
    func rfc850TwoDigitYears(reference: Int64, twoDigits: Int, expected: Int64) throws {
        let text = "Sunday, 01-Jan-\(twoDigits < 10 ? "0" : "")\(twoDigits) 00:00:00 GMT"
        let date = try HTTPDate(parsing: text, referenceYear: reference)
        let expectedDays = CivilDate.days(year: expected, month: 1, day: 1)
        #expect(date.time == UnixTime(seconds: expectedDays * 86_400), "\(text) with reference \(reference)")
    }

    @Test(arguments: [
        ("", HTTPDateError.Code.empty),
        ("   ", .empty),
        ("Sun, 06 Nov 1994 08:49:37", .truncated),
        ("Sun, 06 Nov 1994", .truncated),
        ("Sun", .truncated),
        ("Sun, 06 Nov 1994 08:49:37 UTC", .invalidTimeZone),
        ("Sun, 06 Nov 1994 08:49:37 +0000", .invalidTimeZone),
        ("Fun, 06 Nov 1994 08:49:37 GMT", .invalidDayName),
        ("2024-11-06T08:49:37Z", .invalidDayName),
        ("Sun, 06 Nox 1994 08:49:37 GMT", .invalidMonth),
        ("Sun, 6 Nov 1994 08:49:37 GMT", .invalidDay),
        ("Sun, 00 Nov 1994 08:49:37 GMT", .invalidDay),
        ("Sun, 31 Nov 1994 08:49:37 GMT", .invalidDay),
        ("Sun, 29 Feb 2023 08:49:37 GMT", .invalidDay),
        ("Sun, 29 Feb 1900 08:49:37 GMT", .invalidDay),
        ("Sun, 32 Jan 1994 08:49:37 GMT", .invalidDay),
        ("Sun, 06 Nov 94 08:49:37 GMT", .invalidYear),
        ("Sun, 06 Nov 19945 08:49:37 GMT", .unexpectedCharacter),
        ("Sun, 06 Nov 1994 24:00:00 GMT", .invalidHour),
        ("Sun, 06 Nov 1994 8:49:37 GMT", .invalidHour),
        ("Sun, 06 Nov 1994 08:60:00 GMT", .invalidMinute),
        ("Sun, 06 Nov 1994 08:49:61 GMT", .invalidSecond),
        ("Sun, 06 Nov 1994 08:49:60 GMT", .invalidSecond),
        ("Sun, 06 Nov 1994 08:49:37 GMT junk", .trailingCharacters),
        ("Sun,06 Nov 1994 08:49:37 GMT", .unexpectedCharacter),
        ("Sun, 06 Nov 1994 08.49.37 GMT", .unexpectedCharacter),
        ("Sunday, 06-Nov-1994 08:49:37 GMT", .unexpectedCharacter),
        ("Sun Nov  6 08:49:37 94", .truncated),
        ("Sun Nov  6 08:49:37 94 ", .truncated),
        ("Sun Nov  6 08:49:37 94AD", .invalidYear),
        ("Sun Nov   6 08:49:37 1994", .invalidDay),
        ("Sun Nov  6 08:49:37 1994 GMT", .trailingCharacters),
        ("Sun, 06 Nov 1994 08:49:37 GMT\u{0}", .trailingCharacters),
        ("Sün, 06 Nov 1994 08:49:37 GMT", .invalidDayName),
    ])
    func malformedDatesNameTheProblem(text: String, code: HTTPDateError.Code) {
        #expect(throws: HTTPDateError.self, "\(text)") {
            try HTTPDate(parsing: text, referenceYear: 2026)
        }
        do {
            _ = try HTTPDate(parsing: text, referenceYear: 2026)
        } catch {
            #expect(error.code == code, "\(text): \(error)")
            #expect(!error.reason.isEmpty)
        }
    }

    @Test func roundTripsWhatTheLoopbackServerWrites() throws {
        var generator = SplitMix64(seed: 42)
        let reference: Int64 = 2026
        let referenceStart = CivilDate.days(year: reference - 49, month: 1, day: 1) * 86_400
        let referenceEnd = CivilDate.days(year: reference + 49, month: 12, day: 31) * 86_400
        let allStart = CivilDate.days(year: 0, month: 1, day: 1) * 86_400
        let allEnd = CivilDate.days(year: 9999, month: 12, day: 31) * 86_400 + 86_399
        for _ in 0..<3_000 {
            let any = UnixTime(seconds: Int64.random(in: allStart...allEnd, using: &generator))
            let near = UnixTime(seconds: Int64.random(in: referenceStart...referenceEnd, using: &generator))
            for (style, time) in [
                (HTTPTimeServerDateStyle.imfFixdate, any), (.asctime, any), (.rfc850, near),
            ] {
                let text = style.format(time)
                let parsed = try HTTPDate(parsing: text, referenceYear: reference)
                #expect(parsed.time == time, "\(text)")
                #expect(
                    parsed.format.rawValue.replacingOccurrences(of: "-", with: "")
                        == style.rawValue.lowercased())
            }
        }
    }

    @Test func neverTrapsOnMutatedInput() {
        var generator = SplitMix64(seed: 7)
        let seeds = [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        ]
        let alphabet = Array(" ,-:0123456789GMTSunNovday\t\u{0}\u{FF}".utf8)
        var parsedCount = 0
        for _ in 0..<20_000 {
            var bytes = Array(seeds.randomElement(using: &generator).map { Array($0.utf8) } ?? [])
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where index < bytes.count: bytes.remove(at: index)
                case 1: bytes.insert(alphabet.randomElement(using: &generator) ?? 0, at: index)
                default:
                    if index < bytes.count { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
                }
            }
            if (try? HTTPDate(parsing: String(decoding: bytes, as: UTF8.self), referenceYear: 2026)) != nil {
                parsedCount += 1
            }
        }
        #expect(parsedCount < 20_000)
    }
}

@Suite struct HTTPTimestampHeaderTests {
    @Test(arguments: [
        (
            HTTPTimestampHeader.Unit.milliseconds, "1732932805123", Duration.milliseconds(1_732_932_805_123),
            Duration.milliseconds(1)
        ),
        (.microseconds, "1732932805123456", .microseconds(1_732_932_805_123_456), .microseconds(1)),
        (.nanoseconds, " 1732932805123456789 ", .nanoseconds(1_732_932_805_123_456_789), .nanoseconds(1)),
        (.seconds, "1732932805", .seconds(1_732_932_805), .seconds(1)),
        (.seconds, "1732932805.5", .milliseconds(1_732_932_805_500), .milliseconds(100)),
        (.seconds, "1732932805.123456", .microseconds(1_732_932_805_123_456), .microseconds(1)),
        (.seconds, "0.000000001", .nanoseconds(1), .nanoseconds(1)),
    ])
    func parsesEveryUnit(
        unit: HTTPTimestampHeader.Unit, value: String, expected: Duration, resolution: Duration
    )
        throws
    {
        let reading = try HTTPTimestampHeader(name: "X-Time", unit: unit).parse(value)
        #expect(reading.time == UnixTime(sinceEpoch: expected))
        #expect(reading.resolution == resolution)
    }

    @Test(arguments: [
        (HTTPTimestampHeader.Unit.milliseconds, "", HTTPTimestampError.Code.empty),
        (.milliseconds, "  ", .empty),
        (.milliseconds, "12.5", .notANumber),
        (.milliseconds, "-5", .notANumber),
        (.milliseconds, "+5", .notANumber),
        (.milliseconds, "0x1F", .notANumber),
        (.milliseconds, "1e12", .notANumber),
        (.milliseconds, "1 2", .notANumber),
        (.seconds, "12.", .notANumber),
        (.seconds, ".5", .notANumber),
        (.seconds, "1.2.3", .notANumber),
        (.milliseconds, "9223372036854775808", .outOfRange),
        (.seconds, "1.0000000001", .tooPrecise),
    ])
    func rejectsMalformedValues(unit: HTTPTimestampHeader.Unit, value: String, code: HTTPTimestampError.Code)
    {
        do {
            _ = try HTTPTimestampHeader(name: "X-Time", unit: unit).parse(value)
            Issue.record("'\(value)' parsed")
        } catch {
            #expect(error.code == code, "'\(value)': \(error)")
        }
    }

    /// What a server's reading proves at the reply's arrival, seen as offsets from a local clock that
    /// read 100 s at the departure: the reading, up to the round trip later (40 ms).
    @Test func intervalsFromTimestampsAndDates() {
        let sent = MonotonicInstant(sinceOrigin: .seconds(7))
        let received = sent + .milliseconds(40)
        let local = UnixTime(seconds: 100) + .milliseconds(40)
        let reading = UnixTime(seconds: 102, nanoseconds: 20_000_000)
        let stamp = TrueTimeInterval(
            serverRead: reading - .milliseconds(1), reading + .milliseconds(1), sent: sent,
            received: received,
            tolerancePPM: 0
        )
        #expect(stamp.offsets(fromWall: local) == Duration.milliseconds(1_979)...Duration.milliseconds(2_021))
        #expect(stamp.radius == .milliseconds(21))
        let date = TrueTimeInterval(
            serverRead: UnixTime(seconds: 102), UnixTime(seconds: 103), sent: sent, received: received,
            tolerancePPM: 0)
        #expect(date.offsets(fromWall: local) == Duration.milliseconds(1_960)...Duration.seconds(3))
        #expect(date.intersection(stamp) == stamp)
        let later = TrueTimeInterval(
            earliest: local + .seconds(4), latest: local + .seconds(5), instant: received)
        #expect(date.intersection(later) == nil)
    }
}
