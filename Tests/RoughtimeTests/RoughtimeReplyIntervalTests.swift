import Roughtime
import SNTP
import Testing
import TimeValues

/// The bound one reply proves (``TrueTimeInterval/init(_:tolerancePPM:)``): never tighter than the signed radius, wider
/// by the round trip, carried forward with the clock's possible drift.
@Suite struct RoughtimeReplyIntervalTests {
    static let sent = MonotonicInstant(sinceOrigin: .seconds(100))

    func measurement(roundTrip: Duration, radius: Duration = .seconds(3)) throws -> RoughtimeMeasurement {
        var configuration = try TestSupport.configuration()
        configuration.radius = radius
        let request = try TestSupport.request(publicKey: configuration.publicKey)
        let reply = try TestSupport.reply(to: request, at: TestSupport.now, configuration: configuration)
        let response = try RoughtimeResponse(
            verifying: reply, for: request, publicKey: configuration.publicKey)
        return RoughtimeMeasurement(
            request: request, response: response, sentAt: Self.sent, receivedAt: Self.sent + roundTrip)
    }

    @Test("MIDP − RADI ≤ true(T4) ≤ MIDP + RADI + δ(1 + φ)", arguments: [0, 1, 40, 900])
    func boundOfOneReply(milliseconds: Int64) throws {
        let roundTrip = Duration.milliseconds(milliseconds)
        let tolerance = 15e-6
        let interval = TrueTimeInterval(try measurement(roundTrip: roundTrip), tolerancePPM: 15)
        #expect(interval.instant == Self.sent + roundTrip)
        #expect(interval.earliest == TestSupport.now - .seconds(3))
        let travelled = interval.latest - (TestSupport.now + .seconds(3))
        #expect(travelled >= roundTrip + roundTrip * tolerance)
        // The drift rule's rounding adds at most two nanoseconds.
        #expect(travelled <= roundTrip + roundTrip * tolerance + .nanoseconds(2))
        #expect(interval.radius >= .seconds(3) + roundTrip / 2, "never tighter than RADI + δ/2")
        #expect(interval.midpoint >= TestSupport.now + roundTrip / 2)
    }

    @Test func theSignedRadiusIsAFloor() throws {
        // A 1 s radius server (the smallest a framed reply can sign) and no round trip: still 1 s.
        let interval = TrueTimeInterval(
            try measurement(roundTrip: .zero, radius: .seconds(1)), tolerancePPM: 0)
        #expect(interval.radius == .seconds(1))
        #expect(interval.midpoint == TestSupport.now)
    }

    @Test func ageingMovesTheEndsAndWidensByTheDrift() throws {
        let interval = TrueTimeInterval(try measurement(roundTrip: .milliseconds(10)), tolerancePPM: 0)
        let later = interval.aged(to: interval.instant + .seconds(100), tolerancePPM: 100)
        #expect(later.instant == interval.instant + .seconds(100))
        // 100 s at 100 ppm: 10 ms each side (+ the rounding nanosecond).
        #expect(later.earliest == interval.earliest + .seconds(100) - .milliseconds(10) - .nanoseconds(1))
        #expect(later.latest == interval.latest + .seconds(100) + .milliseconds(10) + .nanoseconds(1))
        // Carried back to an earlier instant, the ends move back and it widens all the same:
        // 5 s at 1000 ppm is 5 ms each side.
        let earlier = interval.aged(to: interval.instant - .seconds(5), tolerancePPM: 1000)
        #expect(earlier.earliest == interval.earliest - .seconds(5) - .milliseconds(5) - .nanoseconds(1))
        #expect(earlier.latest == interval.latest - .seconds(5) + .milliseconds(5) + .nanoseconds(1))
    }

    @Test func offsetsFromTheWallClock() throws {
        let interval = TrueTimeInterval(try measurement(roundTrip: .zero), tolerancePPM: 0)
        // A local clock an hour slow.
        let wall = TestSupport.now - .seconds(3600)
        let offsets = interval.offsets(fromWall: wall)
        #expect(offsets.lowerBound == .seconds(3597))
        #expect(offsets.upperBound == .seconds(3603))
    }
}
