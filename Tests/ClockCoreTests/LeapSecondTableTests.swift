import Foundation
import Testing
import TimeValues

@testable import ClockCore
@testable import NetworkClock

@Suite("Leap-second table")
struct LeapSecondTableTests {
    @Test("tzdata 2025b's table parses, its hash matches, and it expired on 2026-06-28")
    func tzdata() throws {
        let table = try LeapSecondTable(parsing: LeapSecondTables.tzdata2025b)
        #expect(table.entries.count == 28)
        #expect(table.entries.first?.taiMinusUTC == 10)
        #expect(table.entries.last?.taiMinusUTC == 37)
        #expect(table.entries.last?.start == UnixTime(seconds: 1_483_228_800))  // 2017-01-01
        #expect(table.expires == UnixTime(seconds: 1_782_604_800))  // 2026-06-28
        #expect(table.isValid(at: UnixTime(seconds: 1_782_604_799)))
        #expect(!table.isValid(at: UnixTime(seconds: 1_782_604_800)))
        #expect(table.leap(endingAt: 1_483_228_800) == 1)
        #expect(table.leap(endingAt: 1_483_228_800 + 86_400) == 0)
        #expect(table.leap(endingAt: 1_782_604_800) == nil)
        #expect(table.nextLeap(after: UnixTime(seconds: 1_483_228_800)) == nil)
    }

    @Test("SHA-1 of the empty string and of 'abc' (FIPS 180-4 examples)")
    func sha1() {
        let hex = { (bytes: [UInt8]) in bytes.map { String($0, radix: 16).leftPadded(2) }.joined() }
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(hex(SHA1.digest(long)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test("a future inserted and a deleted second; a hash group with its leading zero dropped")
    func future() throws {
        let insert = try LeapSecondTable(parsing: LeapSecondTables.insert2027)
        #expect(insert.leap(endingAt: LeapSecondTables.midnight2027) == 1)
        #expect(insert.nextLeap(after: UnixTime(seconds: 1_790_000_000))?.sign == 1)
        let delete = try LeapSecondTable(parsing: LeapSecondTables.delete2027)
        #expect(delete.leap(endingAt: LeapSecondTables.midnight2027) == -1)
        let none = try LeapSecondTable(parsing: LeapSecondTables.none2027)
        #expect(none.leap(endingAt: LeapSecondTables.midnight2027) == 0)
        #expect(none.expires == UnixTime(seconds: 1_814_140_800))  // 2027-06-28
    }

    @Test(
        "a damaged table is refused",
        arguments: [
            // A digit of a data line changed: the hash no longer matches.
            ("3692217600      37", "3692217600      38", LeapSecondTableError.badStep(line: 31)),
            ("2571782400      20", "2571782401      20", .notAtMidnight(line: 14)),
            ("#@\t3991593600", "#@\t3991593601", .hashMismatch),
            ("#h\t49db2447", "#h\t49db2448", .hashMismatch),
            ("#h\t49db2447 571e5e1b 2f002a53 9c8da8e4 39b8e49e", "", .missing("#h")),
            ("#@\t3991593600", "", .missing("#@")),
            ("#$\t3960835200", "#$\t39608x5200", .malformed(line: 2)),
            ("3644697600      36", "3644697600      36 99", .malformed(line: 30)),
            ("3644697600      36", "3439756800      34", .badStep(line: 30)),
        ])
    func damaged(original: String, replacement: String, expected: LeapSecondTableError) {
        let text = LeapSecondTables.tzdata2025b.replacingFirst(original, with: replacement)
        #expect(text != LeapSecondTables.tzdata2025b)
        #expect(throws: expected) { try LeapSecondTable(parsing: text) }
    }

    @Test("CRLF line ends and blank lines are accepted; an empty file is refused")
    func lineEnds() throws {
        let crlf = LeapSecondTables.none2027.split(separator: "\n").joined(separator: "\r\n\r\n")
        #expect(try LeapSecondTable(parsing: crlf) == LeapSecondTable(parsing: LeapSecondTables.none2027))
        #expect(throws: LeapSecondTableError.missing("#$")) { try LeapSecondTable(parsing: "") }
    }

    @Test("what a valid table tells the anchor: the next leap, known through its expiry")
    func schedule() throws {
        let table = try LeapSecondTable(parsing: LeapSecondTables.delete2027)
        let schedule = LeapSchedule.table(table, at: UnixTime(seconds: LeapSecondTables.midnight2027 - 20))
        #expect(schedule.midnight == LeapSecondTables.midnight2027)
        #expect(schedule.sign == -1)
        #expect(schedule.knownThrough == 1_814_140_799)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }

    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
