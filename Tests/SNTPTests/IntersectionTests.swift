import Testing
import TimeValues

@testable import SNTP

/// The intersection (Marzullo) algorithm on hand-made intervals.
struct IntersectionTests {
    static let base = UnixTime(seconds: 1_800_000_000)

    /// The true time within `bound` ms of `base` + `offset` ms, at one instant.
    static func ms(_ offset: Int64, _ bound: Int64) -> TrueTimeInterval {
        TrueTimeInterval(
            time: base + .milliseconds(offset), bound: .milliseconds(bound),
            instant: MonotonicInstant(sinceOrigin: .seconds(10)))
    }

    @Test func threeHonestAndOneLiar() throws {
        let result = try Intersection.select([
            Self.ms(0, 10), Self.ms(4, 10), Self.ms(-3, 10), Self.ms(5000, 10),
        ])
        #expect(result.truechimers == [0, 1, 2])
        #expect(result.falsetickers == [3])
        // Common part of the three honest intervals: [-6, 7] ms.
        #expect(result.agreement.earliest == Self.base + .milliseconds(-6))
        #expect(result.agreement.latest == Self.base + .milliseconds(7))
    }

    @Test func allAgreeGivesTheFullIntersection() throws {
        let result = try Intersection.select([Self.ms(0, 10), Self.ms(5, 10), Self.ms(8, 4)])
        #expect(result.falsetickers.isEmpty)
        #expect(result.agreement.earliest == Self.base + .milliseconds(4))
        #expect(result.agreement.latest == Self.base + .milliseconds(10))
    }

    @Test func twoAgainstTwoHasNoMajority() {
        #expect(throws: Intersection.Failure.noMajority(sources: 4, largestAgreement: 2)) {
            try Intersection.select([Self.ms(0, 5), Self.ms(2, 5), Self.ms(5000, 5), Self.ms(5002, 5)])
        }
    }

    @Test func oneSourceIsTrusted() throws {
        let result = try Intersection.select([Self.ms(123, 7)])
        #expect(result.truechimers == [0])
        #expect(result.agreement == Self.ms(123, 7))
    }

    @Test func twoSourcesMustOverlap() throws {
        #expect(try Intersection.select([Self.ms(0, 5), Self.ms(8, 5)]).falsetickers.isEmpty)
        #expect(throws: Intersection.Failure.self) {
            try Intersection.select([Self.ms(0, 5), Self.ms(20, 5)])
        }
    }

    @Test func touchingIntervalsOverlap() throws {
        let result = try Intersection.select([Self.ms(0, 5), Self.ms(10, 5)])
        #expect(result.agreement.earliest == Self.base + .milliseconds(5))
        #expect(result.agreement.latest == Self.base + .milliseconds(5))
    }

    @Test func noSources() {
        #expect(throws: Intersection.Failure.noSources) { try Intersection.select([]) }
    }

    @Test func fiveWithTwoLiarsOnOppositeSides() throws {
        let result = try Intersection.select([
            Self.ms(-900, 10), Self.ms(1, 3), Self.ms(2, 3), Self.ms(0, 3), Self.ms(700, 10),
        ])
        #expect(result.truechimers == [1, 2, 3])
        #expect(result.falsetickers == [0, 4])
    }
}
