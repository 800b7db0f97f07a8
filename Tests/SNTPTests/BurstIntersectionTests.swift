import NetClockPlatform
import Testing
import TimeValues

@testable import SNTP

/// The intersection of one burst's intervals, on hand-made intervals (``BurstIntersection``).
///
/// Tolerances: intervals given with a zero frequency tolerance are compared exactly (Duration
/// arithmetic is exact). Widened ones are compared to 1 ns: the drift rule rounds the widening up
/// by at most that much beyond a whole nanosecond.
struct BurstIntersectionTests {
    static let start = MonotonicInstant(sinceOrigin: .seconds(1000))
    /// The true time at ``start`` that the millisecond values below are counted from.
    static let base = UnixTime(seconds: 1_800_000_000)

    /// The true time within `[lower, upper]` milliseconds of `base` at `start + at` (so values
    /// at different instants compare as boot epochs do), drifting at most `ppm`.
    static func interval(_ lower: Double, _ upper: Double, at: Duration = .zero, ppm: Double = 0)
        -> (interval: TrueTimeInterval, tolerancePPM: Double)
    {
        let origin = base + at
        return (
            TrueTimeInterval(
                earliest: origin + .nanoseconds(Int64(lower * 1e6)),
                latest: origin + .nanoseconds(Int64(upper * 1e6)),
                instant: start + at),
            ppm
        )
    }

    /// The agreement as `[lower, upper]` counted from `base` at its instant, and that instant.
    static func agreement(_ intervals: [(interval: TrueTimeInterval, tolerancePPM: Double)])
        -> (ClosedRange<Duration>, MonotonicInstant)?
    {
        guard case .agreement(let interval) = BurstIntersection.intersect(intervals) else { return nil }
        return (interval.offsets(fromWall: base + (interval.instant - start)), interval.instant)
    }

    /// How much `interval` grows, on each side, when aged to `instant`.
    static func widening(
        _ interval: (interval: TrueTimeInterval, tolerancePPM: Double), to instant: MonotonicInstant
    )
        -> Duration
    {
        let aged = interval.interval.aged(to: instant, tolerancePPM: interval.tolerancePPM)
        return aged.radius - interval.interval.radius
    }

    @Test func overlappingIntervalsGiveTheirCommonPart() throws {
        let (interval, reference) = try #require(
            Self.agreement([Self.interval(0, 10), Self.interval(4, 14)]))
        #expect(interval == Duration.milliseconds(4)...Duration.milliseconds(10))
        #expect(interval.lowerBound + (interval.upperBound - interval.lowerBound) / 2 == .milliseconds(7))
        #expect((interval.upperBound - interval.lowerBound) / 2 == .milliseconds(3))
        #expect(reference == Self.start)
    }

    @Test func aNestedIntervalIsTheIntersection() throws {
        let (interval, _) = try #require(Self.agreement([Self.interval(0, 20), Self.interval(5, 8)]))
        #expect(interval == Duration.milliseconds(5)...Duration.milliseconds(8))
    }

    /// The lower edge comes from one interval, the upper from another: neither alone is as tight.
    @Test func edgesComeFromDifferentIntervals() throws {
        let (interval, _) = try #require(
            Self.agreement([Self.interval(-11, 3), Self.interval(-2, 9), Self.interval(-6, 6)]))
        #expect(interval == Duration.milliseconds(-2)...Duration.milliseconds(3))
    }

    @Test func disjointIntervalsNameThePairFarthestApart() throws {
        // [12, 20] has the highest lower edge, [-5, 3] the lowest upper edge: 9 ms apart, while
        // [0, 10] and [12, 20] are only 2 ms apart.
        let outcome = BurstIntersection.intersect([
            Self.interval(0, 10), Self.interval(12, 20), Self.interval(-5, 3), Self.interval(2, 13),
        ])
        guard case .conflict(let conflict) = outcome else {
            Issue.record("expected a conflict, got \(String(describing: outcome))")
            return
        }
        #expect(conflict.higher == 1)
        #expect(conflict.lower == 2)
        #expect(conflict.gap == .milliseconds(9))
    }

    @Test func aSingleIntervalIsItself() throws {
        let (interval, reference) = try #require(Self.agreement([Self.interval(-1, 3, at: .seconds(2))]))
        #expect(interval == Duration.milliseconds(-1)...Duration.milliseconds(3))
        #expect(reference == Self.start + .seconds(2))
        #expect(BurstIntersection.intersect([NTPSample]()) == nil)
    }

    /// Aged to the latest instant (1 s later), the earlier interval grows by 100 ppm × 1 s = 0.1 ms
    /// on each side; the later one not at all.
    @Test func earlierIntervalsWidenByToleranceTimesDistance() throws {
        let early = Self.interval(0, 10, ppm: 100)
        let late = Self.interval(9, 20, at: .seconds(1), ppm: 100)
        #expect(
            abs(Self.widening(early, to: Self.start + .seconds(1)) - .microseconds(100)) <= .nanoseconds(1))
        #expect(Self.widening(late, to: Self.start + .seconds(1)) == .zero)
        let (interval, reference) = try #require(Self.agreement([early, late]))
        #expect(reference == Self.start + .seconds(1))
        #expect(interval.lowerBound == .milliseconds(9))
        #expect(abs(interval.upperBound - .microseconds(10_100)) <= .nanoseconds(1))
    }

    /// 50 µs apart at their own instants, but 1 s of 100 ppm drift (±100 µs) reconciles them.
    @Test func wideningCanReconcileIntervalsFromDifferentInstants() throws {
        let early = Self.interval(0, 10, ppm: 100)
        let late = Self.interval(10.05, 20, at: .seconds(1), ppm: 100)
        let (interval, _) = try #require(Self.agreement([early, late]))
        #expect(interval.lowerBound == .microseconds(10_050))
        #expect(abs(interval.upperBound - .microseconds(10_100)) <= .nanoseconds(1))
        // Without drift they contradict each other.
        let rigid = BurstIntersection.intersect([
            Self.interval(0, 10), Self.interval(10.05, 20, at: .seconds(1)),
        ])
        guard case .conflict(let conflict) = rigid else {
            Issue.record("expected a conflict")
            return
        }
        #expect(conflict.gap == .microseconds(50))
    }
}
