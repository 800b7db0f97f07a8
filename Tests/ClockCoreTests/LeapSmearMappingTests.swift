import NetClockPlatform
import Testing
import TimeValues

@testable import ClockCore
@testable import NetworkClock

/// A smearing server's interval mapped onto stepping (POSIX) time, against the exact truth: linear
/// (SI) time `u` a given distance from the 2027-01-01 midnight; the server tells the 24 h linear
/// smear of `u` within ±1 ms; the truth the anchors hold is POSIX time at `u` (an inserted second
/// repeats 23:59:59, a deleted one skips it). The mapping is exact in integers, so its error is
/// rounding (attoseconds); the bound grows by the smear's slope (1 ms / 86,400 ≈ 12 ns) when the
/// leap is known, by the 1 s step while the interval straddles it, and by up to the half second the
/// smear moved the time when the leap is unknown.
@Suite("Leap seconds: smearing servers mapped onto stepping time")
struct LeapSmearMappingTests {
    static let midnight = LeapSecondTables.midnight2027
    static let radius = Duration.milliseconds(1)
    static let instant = MonotonicInstant(sinceOrigin: .seconds(1000))

    /// Linear time `offset` from the midnight.
    static func linear(_ offset: Duration) -> UnixTime { UnixTime(seconds: midnight) + offset }

    /// The 24 h linear smear of linear time `u` for a leap of `sign`, exact to the attosecond (the
    /// clock tests' `Double` form is good to a microsecond, not enough here).
    static func smeared(_ u: UnixTime, sign: Int64) -> UnixTime {
        let start = UnixTime(seconds: midnight - 43_200)
        let width = Duration.seconds(86_400 + sign)
        let elapsed = min(max(u - start, .zero), width)
        return u - Duration(attoseconds: elapsed.attoseconds * Int128(sign) / Int128(86_400 + sign))
    }

    /// The smearing server's ±1 ms interval at linear time `u` for a leap of `sign`.
    static func smearedInterval(_ u: UnixTime, sign: Int64) -> TrueTimeInterval {
        TrueTimeInterval(time: smeared(u, sign: sign), bound: radius, instant: instant)
    }

    /// Distances from midnight checked: outside the window, inside it, and around the step.
    static let offsets: [Duration] = [
        .seconds(-43_300), .seconds(-43_199), .seconds(-3600), .milliseconds(-1500), .milliseconds(-999),
        .milliseconds(-500), .zero, .milliseconds(500), .milliseconds(999), .milliseconds(1500),
        .seconds(3600), .seconds(43_199), .seconds(43_300),
    ]

    @Test(
        "a known leap: the truth inside, the bound the server's plus the slope, or the step's second",
        arguments: [Int64(1), -1])
    func known(sign: Int64) throws {
        let mapping = SmearMapping(midnight: Self.midnight, signs: [sign])
        let step = Self.linear(sign > 0 ? .zero : .seconds(-1))
        for offset in Self.offsets {
            let u = Self.linear(offset)
            let smeared = Self.smearedInterval(u, sign: sign)
            let mapped = mapping.map(smeared)
            let truth = LeapSecondClockTests.posix(u, sign: sign)
            #expect(mapped.contains(truth), "\(offset)")
            let straddles = abs(u - step) <= Self.radius * 1.0001
            if straddles {
                #expect(mapped.radius <= Self.radius + .milliseconds(501), "\(offset)")
            } else {
                #expect(abs(mapped.midpoint - truth) <= .nanoseconds(20), "\(offset)")
                #expect(mapped.radius - Self.radius <= .nanoseconds(13), "\(offset)")
            }
        }
    }

    @Test("outside the 24 h around a month's end a smearing server maps to itself")
    func outsideWindow() {
        let far = Self.smearedInterval(Self.linear(.seconds(-86_400 * 10)), sign: 0)
        #expect(SmearMapping.window(of: far) == nil)
        let before = Self.smearedInterval(Self.linear(.seconds(-43_300)), sign: 1)
        #expect(SmearMapping.window(of: before) == nil)
        let inside = Self.smearedInterval(Self.linear(.seconds(-43_000)), sign: 1)
        #expect(SmearMapping.window(of: inside) == Self.midnight)
        let after = Self.smearedInterval(Self.linear(.seconds(43_000)), sign: 1)
        #expect(SmearMapping.window(of: after) == Self.midnight)
        // Known to have no leap: unchanged.
        let none = SmearMapping(midnight: Self.midnight, signs: [0])
        #expect(none.map(inside) == inside)
    }

    @Test("an unknown leap: the bound covers every sign, widened by at most the half second the smear moved")
    func unknown() {
        let mapping = SmearMapping(midnight: Self.midnight, signs: [1, 0, -1])
        for actual: Int64 in [1, 0, -1] {
            for offset in Self.offsets {
                let u = Self.linear(offset)
                let mapped = mapping.map(Self.smearedInterval(u, sign: actual))
                #expect(mapped.contains(LeapSecondClockTests.posix(u, sign: actual)), "\(actual) \(offset)")
                // At most the half second either way, and the step's second across it.
                #expect(mapped.radius <= Self.radius + .milliseconds(1001), "\(actual) \(offset)")
                // Widened by how far the smear may have gone: x = fraction of the smear done.
                let fraction = min(1, max(0, (u - Self.linear(.seconds(-43_200))).secondsDouble / 86_400))
                let possible = min(fraction, 1 - fraction)
                if abs(offset) > .seconds(2) {
                    #expect(mapped.radius >= Self.radius + .seconds(possible) - .milliseconds(2), "\(offset)")
                    #expect(mapped.radius <= Self.radius + .seconds(possible) + .milliseconds(2), "\(offset)")
                }
            }
        }
    }

    @Test(
        "what is known: a valid table decides; else the stepping servers' vote and the held anchor, both when they differ"
    )
    func knowledge() throws {
        let insert = try LeapSecondTable(parsing: LeapSecondTables.insert2027)
        let none = try LeapSecondTable(parsing: LeapSecondTables.none2027)
        let lastDay = UnixTime(seconds: Self.midnight - 3600)
        let earlier = UnixTime(seconds: Self.midnight - 5 * 86_400)
        let after = UnixTime(seconds: Self.midnight + 3600)
        #expect(SmearKnowledge().signs(at: Self.midnight, latest: lastDay) == [1, 0, -1])
        #expect(SmearKnowledge(table: insert).signs(at: Self.midnight, latest: lastDay) == [1])
        #expect(
            SmearKnowledge(table: none, announced: (1, lastDay)).signs(at: Self.midnight, latest: lastDay)
                == [0])
        #expect(SmearKnowledge(announced: (-1, earlier)).signs(at: Self.midnight, latest: lastDay) == [-1])
        #expect(SmearKnowledge(announced: (0, lastDay)).signs(at: Self.midnight, latest: lastDay) == [0])
        // LI 0 speaks only for the current day; after the midnight no indicator speaks for it.
        #expect(
            SmearKnowledge(announced: (0, earlier)).signs(at: Self.midnight, latest: lastDay) == [1, 0, -1])
        #expect(SmearKnowledge(announced: (0, after)).signs(at: Self.midnight, latest: after) == [1, 0, -1])
        #expect(SmearKnowledge(announced: (1, after)).signs(at: Self.midnight, latest: after) == [1, 0, -1])
        let held = LeapSchedule.announced(sign: 1, at: lastDay)
        #expect(SmearKnowledge(anchor: held).signs(at: Self.midnight, latest: after) == [1])
        #expect(
            SmearKnowledge(anchor: held, announced: (0, lastDay)).signs(at: Self.midnight, latest: lastDay)
                == [1, 0])
        // An expired table is not used.
        let expired = UnixTime(seconds: Self.midnight + 200 * 86_400)
        #expect(SmearKnowledge(table: insert).signs(at: Self.midnight, latest: expired) == [1, 0, -1])
    }
}

extension TrueTimeInterval {
    /// Whether `time` is inside the interval, its ends included.
    fileprivate func contains(_ time: UnixTime) -> Bool { earliest <= time && time <= latest }
}
