import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// The anchored clock across syncs: the new interval is intersected with the previous anchor's,
/// aged to the same instant; disjoint intervals make the new one win with a discontinuity.
///
/// The simulated monotonic clock has no drift and is its own time base, and the clocks use a 15 ppm
/// prior (the default is 500 ppm): with one earlier sync the previous anchor ages at exactly 15
/// ppm; the clock rounds each aged bound up to a whole nanosecond plus one, and the intersection's
/// midpoint down to a whole nanosecond, so expected values are exact to within 2 ns.
@Suite("AnchoredClock across syncs")
struct AnchorIntersectionTests {
    private static let slack = Duration.nanoseconds(2)
    /// What rounding up may add across an offer compared with a reading just before it: the aged
    /// bound, the intersection's bound and the next reading's growth are each rounded up to a
    /// whole nanosecond (a reading adds 1 ns rather than comparing its truncation back).
    private static let roundingSlack = Duration.nanoseconds(4)

    private func makeClock(_ timeline: SimulatedTimeline) -> AnchoredClock {
        AnchoredClock(
            monotonic: timeline.monotonicClock, wall: timeline.wallClock,
            policy: NetworkClock.ClockPolicy(priorTolerancePPM: 15), kernel: .unavailable)
    }

    /// An anchor taken now whose time is `error` off the truth.
    private func anchor(
        _ timeline: SimulatedTimeline, error: Duration, bound: Duration, server: String
    ) -> Anchor {
        var anchor = timeline.anchor(bound: bound, server: server)
        anchor.trueTime = anchor.trueTime + error
        return anchor
    }

    // Previous: +3 ms ± 5 ms; 100 s later it has aged to +3 ms ± 6.5 ms, i.e. [−3.5, +9.5] ms.
    // New: −2 ms ± 4 ms, i.e. [−6, +2] ms. Intersection [−3.5, +2] ms: midpoint −0.75 ms, half-width
    // 2.75 ms, tighter than both 4 ms and 6.5 ms.
    @Test("overlapping intervals: the anchor becomes the intersection, tighter than either, at its midpoint")
    func overlapping() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        #expect(
            clock.offer(anchor(timeline, error: .milliseconds(3), bound: .milliseconds(5), server: "a"))
                == .adopted)
        timeline.advance(by: .seconds(100))
        let offered = anchor(timeline, error: .milliseconds(-2), bound: .milliseconds(4), server: "b")
        #expect(clock.offer(offered) == .intersected)
        let merged = try #require(clock.anchor)
        #expect(merged.monotonic == offered.monotonic)
        #expect(merged.server == "b")
        let truth = timeline.trueTime
        #expect(abs(merged.trueTime - (truth - .microseconds(750))) <= Self.slack)
        #expect(abs(merged.errorBound - .microseconds(2750)) <= Self.slack)
        #expect(merged.errorBound < offered.errorBound)
        let estimate = try #require(clock.now())
        #expect(estimate.contains(truth))
        #expect(estimate.errorBound < .microseconds(2750) + Self.slack)
        // Both edges of the intersection stay inside the new bound.
        #expect(estimate.earliest <= truth - .microseconds(3500))
        #expect(estimate.latest >= truth + .milliseconds(2))
    }

    // Previous: exact ± 1 ms; a minute later ± 1.9 ms. New: +50 ms ± 2 ms: no overlap. The new
    // anchor wins as offered and the step is the distance between the two estimates, 50 ms exactly.
    @Test("disjoint intervals: the new anchor wins and the step is the jump of the estimate")
    func disjoint() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        clock.offer(anchor(timeline, error: .zero, bound: .milliseconds(1), server: "a"))
        timeline.advance(by: .seconds(60))
        let before = try #require(clock.now())
        let offered = anchor(timeline, error: .milliseconds(50), bound: .milliseconds(2), server: "b")
        #expect(clock.offer(offered) == .discontinuous(step: .milliseconds(50)))
        #expect(clock.anchor == offered)
        let after = try #require(clock.now())
        #expect(after.time - before.time == .milliseconds(50))
        #expect(after.errorBound == .milliseconds(2))

        // And in the other direction, looser than the aged previous bound: it still wins.
        timeline.advance(by: .seconds(60))
        let behind = anchor(timeline, error: .milliseconds(-30), bound: .milliseconds(10), server: "c")
        #expect(clock.offer(behind) == .discontinuous(step: .milliseconds(-80)))
        #expect(clock.anchor == behind)
    }

    @Test("the facade emits anchorDiscontinuity with the step")
    func facadeEvent() async throws {
        let timeline = SimulatedTimeline()
        var clock: NetworkClock? = NetworkClock(
            configuration: NetworkClock.Configuration(servers: []), monotonic: timeline.monotonicClock,
            wall: timeline.wallClock, kernel: .unavailable)
        let events = try #require(clock?.events())
        func ingest(serverAhead: Duration) throws -> Bool {
            let sent = timeline.monotonicReading
            timeline.advance(by: .milliseconds(10))
            // 10 ms round trip and 1 ms resolution: ± 5.5 ms around the truth plus `serverAhead`.
            return try #require(clock).ingest(
                serverTime: timeline.trueTime + serverAhead - .milliseconds(5) - .microseconds(500),
                requestSent: sent, responseReceived: timeline.monotonicReading)
        }
        #expect(try ingest(serverAhead: .zero))
        timeline.advance(by: .seconds(1))
        // A server 2 s ahead: its interval misses the first one's by far.
        #expect(try ingest(serverAhead: .seconds(2)))
        // Releasing the clock ends the stream, so the loop below cannot wait forever.
        clock = nil
        var all: [ClockEvent] = []
        for await event in events { all.append(event) }
        try check(all)
    }

    private func check(_ all: [ClockEvent]) throws {
        #expect(all.count == 1)
        guard case .anchorDiscontinuity(let step)? = all.first else {
            Issue.record("expected one anchorDiscontinuity, got \(all)")
            return
        }
        #expect(step == .seconds(2))
        #expect(
            all[0].description
                == "anchor discontinuity: the new time disagrees with the anchor, now() jumped by +2.000000s")
    }

    @Test("a looser interval that contains the aged anchor changes nothing")
    func looserAddsNothing() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        let first = anchor(timeline, error: .microseconds(200), bound: .milliseconds(1), server: "a")
        clock.offer(first)
        timeline.advance(by: .seconds(10))
        #expect(clock.offer(anchor(timeline, error: .zero, bound: .milliseconds(30), server: "b")) == .kept)
        #expect(
            !clock.offer(anchor(timeline, error: .zero, bound: .milliseconds(40), server: "c")).replacedAnchor
        )
        #expect(clock.anchor == first)
    }

    // 2000 samples at random instants (0–120 s apart), each with a random bound of 0.1–20 ms and an
    // error anywhere inside it (so every interval holds the truth, as an honest server's does).
    // After each: the truth is inside, and the bound is at most both the previous bound aged to now
    // and the new sample's aged to now, so no sample, however poor, loosened it. The measured
    // frequency interval lies inside the 15 ppm prior (which the honest samples agree with), so no
    // sample ages faster than at 15 ppm.
    @Test("a worse sample never loosens the bound; the truth stays inside (2000 random samples)")
    func neverLooser() throws {
        let timeline = SimulatedTimeline()
        let clock = AnchoredClock(
            monotonic: timeline.monotonicClock, wall: timeline.wallClock,
            policy: NetworkClock.ClockPolicy(priorTolerancePPM: 15), kernel: .unavailable)
        var random = SplitMix64(seed: 11)
        var intersected = 0
        var kept = 0
        var worstExcess = Duration.seconds(-1)
        for _ in 0..<2000 {
            timeline.advance(by: .milliseconds(Int64.random(in: 0...120_000, using: &random)))
            let bound = Duration.microseconds(Int64.random(in: 100...20_000, using: &random))
            let error = Duration.nanoseconds(
                Int64.random(in: -bound.truncatedNanoseconds...bound.truncatedNanoseconds, using: &random))
            // Half of the samples are taken up to 2 s earlier than now (a late report).
            let age = Duration.milliseconds(
                Int64.random(in: 0...1, using: &random) * Int64.random(in: 0...2_000, using: &random))
            var offered = anchor(timeline, error: error, bound: bound, server: "r")
            offered.monotonic = offered.monotonic - age
            offered.trueTime = offered.trueTime - age
            let previous = try #require(clock.now()?.errorBound ?? .seconds(1_000))
            let offeredNow = bound + age.drift(atPPM: 15)
            switch clock.offer(offered) {
            case .intersected: intersected += 1
            case .kept: kept += 1
            case .discontinuous(let step): Issue.record("honest samples never disagree: \(step)")
            default: break
            }
            let estimate = try #require(clock.now())
            #expect(estimate.contains(timeline.trueTime))
            #expect(estimate.errorBound <= previous + Self.roundingSlack)
            #expect(estimate.errorBound <= offeredNow + Self.roundingSlack)
            worstExcess = max(worstExcess, estimate.errorBound - min(previous, offeredNow))
        }
        print("worst excess over min(previous, offered) bound: \(worstExcess)")
        // The run exercised both kinds of merge.
        #expect(intersected > 100 && kept > 100, "\(intersected) intersected, \(kept) kept")
    }

    // A restored anchor is the previous anchor like any other: a new sync that overlaps it is
    // intersected with it (aged from its original instant), and the result is no longer restored.
    @Test("a restored anchor is intersected with the next sync")
    func restoredIsPrevious() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        var restored = anchor(timeline, error: .milliseconds(1), bound: .milliseconds(2), server: "saved")
        restored.source = .restored
        #expect(clock.offer(restored) == .adopted)
        timeline.advance(by: .seconds(20))
        // Restored aged 20 s at 15 ppm: [−1.3, +3.3] ms; new [−2.5, +0.5] ms → [−1.3, +0.5] ms,
        // half-width 0.9 ms around −0.4 ms.
        let offered = anchor(timeline, error: .milliseconds(-1), bound: .microseconds(1_500), server: "live")
        #expect(clock.offer(offered) == .intersected)
        let estimate = try #require(clock.now())
        #expect(estimate.source == .ntp)
        #expect(abs(estimate.errorBound - .microseconds(900)) <= Self.slack)
        #expect(abs(estimate.time - (timeline.trueTime - .microseconds(400))) <= Self.slack)
        #expect(estimate.contains(timeline.trueTime))
    }
}
