import NetClockPlatform
import Testing
import TimeValues

@testable import SNTP

/// ``ServerQueryResult/estimate`` on bursts of samples built from known path delays.
///
/// Every time is a whole number of ticks of 2⁻¹⁰ s, exact in NTP's 32.32 format and in `Duration`,
/// the server's precision is one tick and the frequency tolerance zero, so each sample's interval
/// is exactly [truth − back − 1 tick, truth + out + 1 tick] and every expectation is exact.
struct BurstEstimateTests {
    static let tick = Duration(secondsComponent: 0, attosecondsComponent: 976_562_500_000_000)
    static let truth = Duration.seconds(2)
    static let wall = UnixTime(seconds: 1_796_040_000)
    static let monotonic = MonotonicInstant(sinceOrigin: .seconds(100))
    static let address = SocketAddress(ipv4: (127, 0, 0, 1), port: 123)

    /// A sample sent `sentAt` ticks after `wall`, `out` ticks on the way there and `back` on the way
    /// back, from a server whose clock is `truth + step` ahead.
    static func sample(sentAt: Int64, out: Int64, back: Int64, step: Duration = .zero) -> NTPSample {
        let t1 = wall + tick * sentAt
        let t2 = t1 + tick * out + truth + step
        let t4 = t1 + tick * (out + back)
        let reply = NTPPacket(
            mode: .server, stratum: NTPPacket.Stratum(rawValue: 2),
            precision: NTPPacket.Log2Seconds(rawValue: -10),
            receiveTimestamp: NTPTimestamp(t2), transmitTimestamp: NTPTimestamp(t2))
        return NTPSample(
            server: address, t1: NTPTimestamp(t1), reply: reply, t4: NTPTimestamp(t4),
            receivedAt: monotonic + (t4 - wall), localReceiveTime: t4, localPrecision: .zero,
            frequencyTolerancePPM: 0)
    }

    static func burst(_ outcomes: [ExchangeRecord.Outcome]) -> ServerQueryResult {
        let exchanges = outcomes.enumerated().map { index, outcome in
            ExchangeRecord(
                nonce: NTPTimestamp(rawValue: UInt64(index + 1)), sentAt: wall, outcome: outcome, rejected: []
            )
        }
        return ServerQueryResult(
            address: address, exchanges: exchanges, mapping: TimeMapping(wall: wall, monotonic: monotonic))
    }

    static func offsets(_ lower: Int64, _ upper: Int64) -> ClosedRange<Duration> {
        (truth + tick * lower)...(truth + tick * upper)
    }

    /// Intervals (ticks from the truth): [−11, 3], [−2, 9], [−6, 6]. The minimum-delay sample is the
    /// second (9 ticks), 3.5 ticks off with a 5.5-tick bound; the intersection [−2, 3] is 0.5 tick
    /// off with a 2.5-tick bound: its edges come from the fastest return leg (1 tick, the second
    /// sample) and the fastest outbound leg (2 ticks, the first).
    @Test func theIntersectionUsesTheFastestLegOfEachDirection() throws {
        let samples = [
            Self.sample(sentAt: 0, out: 2, back: 10), Self.sample(sentAt: 20, out: 8, back: 1),
            Self.sample(sentAt: 40, out: 5, back: 5),
        ]
        let result = Self.burst(samples.map { .sample($0) })
        #expect(result.best == samples[1])
        #expect(result.best?.offset == Self.truth + Self.tick * 7 / 2)
        #expect(result.best?.errorBound == Self.tick * 11 / 2)
        let estimate = try #require(try result.estimate?.get())
        #expect(estimate.method == .intersection)
        #expect(estimate.sampleCount == 3)
        #expect(estimate.offset == Self.offsets(-2, 3))
        #expect(estimate.interval.midpoint - estimate.localTime - Self.truth == Self.tick / 2)
        #expect(estimate.interval.radius == Self.tick * 5 / 2)
        #expect(estimate.interval.instant == samples[2].receivedAt)
        // As true time at that instant: the same interval from the local wall clock's reading.
        #expect(estimate.interval.earliest == estimate.localTime + estimate.offset.lowerBound)
        #expect(estimate.interval.latest == estimate.localTime + estimate.offset.upperBound)
    }

    @Test func oneSampleIsTheMinimumDelayEstimate() throws {
        let sample = Self.sample(sentAt: 0, out: 3, back: 1)
        let result = Self.burst([.timedOut, .sample(sample)])
        let estimate = try #require(try result.estimate?.get())
        #expect(estimate.method == .minDelay)
        #expect(estimate.offset == (sample.offset - sample.errorBound)...(sample.offset + sample.errorBound))
        #expect(estimate.offset == Self.offsets(-2, 4))
        #expect(estimate.interval.instant == sample.receivedAt)
        #expect(Self.burst([.timedOut]).estimate == nil)
    }

    /// The server steps its clock 1 s forward after the second request (the third timed out): the
    /// first sample's interval [−3, 3] and the fourth's [1021, 1027] ticks are farthest apart
    /// (ties go to the earlier sample), 1018 ticks.
    @Test func aClockStepWithinTheBurstIsAnInconsistency() throws {
        let result = Self.burst([
            .sample(Self.sample(sentAt: 0, out: 2, back: 2)), .timedOut,
            .sample(Self.sample(sentAt: 20, out: 2, back: 2, step: .seconds(1))),
            .sample(Self.sample(sentAt: 40, out: 2, back: 2, step: .seconds(1))),
        ])
        guard case .failure(let inconsistency) = result.estimate else {
            Issue.record("expected an inconsistency, got \(String(describing: result.estimate))")
            return
        }
        #expect(inconsistency.firstRequest == 1)
        #expect(inconsistency.secondRequest == 3)
        #expect(inconsistency.first.offset == Self.truth)
        #expect(inconsistency.second.offset == Self.truth + .seconds(1))
        #expect(inconsistency.gap == Self.tick * 1018)
        #expect(inconsistency.description.hasPrefix("requests 1 and 3 of the burst contradict each other"))
    }
}
