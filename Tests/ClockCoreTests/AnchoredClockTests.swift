import Foundation
import NetClockPlatform
import SNTP
import Synchronization
import NetClockTestSupport
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

@Suite("AnchoredClock")
struct AnchoredClockTests {
    /// A 15 ppm prior, for tests about intersection rather than the tolerance.
    static let fifteen = NetworkClock.ClockPolicy(priorTolerancePPM: 15)

    private func makeClock(
        _ timeline: SimulatedTimeline, policy: NetworkClock.ClockPolicy = NetworkClock.ClockPolicy()
    ) -> AnchoredClock {
        AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock, policy: policy)
    }

    @Test("never synced: now() is nil")
    func unsynchronized() {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        #expect(clock.now() == nil)
        #expect(!clock.isSynchronized)
        #expect(clock.anchor == nil)
        #expect(clock.timeRemaining(until: timeline.trueTime) == nil)
        #expect(clock.wallClockOffset() == nil)
    }

    // The simulated monotonic clock has no drift and the clock computes in whole nanoseconds, so the
    // only error is truncating the monotonic reading to a nanosecond; 1 µs (the figure)
    // leaves room for that while an implementation that consulted the wall clock would be off by
    // the full step.
    @Test(
        "wall clock steps after sync do not move now()",
        arguments: [Duration.seconds(3600), .seconds(-3600), .seconds(365 * 86_400)])
    func wallClockSteps(step: Duration) throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(10))).replacedAnchor)
        timeline.advance(by: .seconds(10))
        let before = try #require(clock.now())
        timeline.stepWallClock(by: step)
        let after = try #require(clock.now())
        #expect(after == before)
        #expect(abs(after.time - timeline.trueTime) <= .microseconds(1))
        #expect(timeline.wallReading - timeline.trueTime == step)
        // The offset reported against the stepped wall clock is minus the step.
        let offset = try #require(clock.wallClockOffset())
        #expect(abs(offset + step) <= .microseconds(1))

        timeline.advance(by: .seconds(50))
        let later = try #require(clock.now())
        #expect(abs(later.time - timeline.trueTime) <= .microseconds(1))
        #expect(later.age == .seconds(60))
    }

    /// Authentication is sticky: no unauthenticated anchor moves an authenticated one, whether it
    /// overlaps (it would narrow and so steer it), lies inside it, or contradicts it (it would step
    /// it), and the drift history does not learn from it either.
    @Test(
        "unauthenticated anchors never move an authenticated one",
        arguments: [Duration.zero, .milliseconds(3), .seconds(-400 * 86_400), .seconds(3_600)])
    func authenticationIsSticky(shift: Duration) throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        var authenticated = timeline.anchor(bound: .milliseconds(10), source: .ntp, server: "nts.example")
        authenticated.isAuthenticated = true
        #expect(clock.offer(authenticated) == .adopted)
        timeline.advance(by: .seconds(30))
        let before = try #require(clock.now())
        var offered = timeline.anchor(bound: .milliseconds(1), source: .http, server: "http://evil.example/")
        offered.trueTime = offered.trueTime + shift
        #expect(clock.offer(offered) == .keptAuthenticated)
        #expect(clock.anchor == authenticated)
        #expect(clock.now() == before)
        #expect(before.isAuthenticated)
        #expect(clock.frequencyTracker.points.count == 1, "the unauthenticated sync point was not learnt")
        // Authenticated evidence still moves it as before.
        var better = timeline.anchor(bound: .milliseconds(2), source: .ntp, server: "nts.example")
        better.isAuthenticated = true
        #expect(clock.offer(better).replacedAnchor)
        #expect(clock.now()?.isAuthenticated == true)
    }

    @Test("the estimate reports time, bound, interval, age, source and server")
    func estimateFields() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        let anchor = timeline.anchor(
            bound: .milliseconds(8), source: .http, server: "https://time.example.org/")
        clock.offer(anchor)
        timeline.advance(by: .seconds(2))
        let estimate = try #require(clock.now())
        #expect(estimate.time == anchor.trueTime + .seconds(2))
        #expect(estimate.age == .seconds(2))
        #expect(estimate.source == .http)
        #expect(estimate.server == "https://time.example.org/")
        #expect(!estimate.isDriftCorrected)
        #expect(estimate.earliest == estimate.time - estimate.errorBound)
        #expect(estimate.latest == estimate.time + estimate.errorBound)
        #expect(estimate.contains(timeline.trueTime))
        #expect(!estimate.contains(estimate.latest + .nanoseconds(1)))
        #expect(abs(estimate.date.timeIntervalSince1970 - estimate.time.secondsDouble) < 1e-6)
        #expect(clock.anchor == anchor)
    }

    // Before a second sync has measured the frequency, the bound grows at the prior tolerance:
    // 500 ppm by default (it was 15 ppm, which an oscillator 60 or 80 ppm off outruns; see
    // NetworkClock.ClockPolicy.priorTolerancePPM). 3600 s × 500 ppm = 1.8 s; the clock rounds the growth up
    // to a whole nanosecond so the bound stays sound, and 500e-6 is not exact in binary.
    @Test("before the frequency is measured the bound grows at the 500 ppm prior: +1.8 s after one hour")
    func boundGrowth() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        let bound0 = Duration.milliseconds(10)
        clock.offer(timeline.anchor(bound: bound0))
        #expect(try #require(clock.now()).errorBound == bound0)
        timeline.advance(by: .seconds(3600))
        let bound = try #require(clock.now()).errorBound
        #expect(bound >= bound0 + .milliseconds(1800))
        #expect(bound <= bound0 + .milliseconds(1800) + .nanoseconds(1))
        #expect(abs(clock.boundGrowthRate - 500e-6) < 1e-15)
    }

    @Test("a custom tolerance changes the growth rate")
    func customTolerance() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline, policy: NetworkClock.ClockPolicy(priorTolerancePPM: 100))
        clock.offer(timeline.anchor(bound: .zero))
        timeline.advance(by: .seconds(100))
        let bound = try #require(clock.now()).errorBound
        #expect(bound >= .milliseconds(10) && bound <= .milliseconds(10) + .nanoseconds(1))
    }

    // The aging numbers below are at a 15 ppm prior (the default is 500 ppm): this test is about
    // which sample wins, not about the tolerance. Two syncs at different instants measure the
    // frequency, but with bounds of milliseconds over an hour the measured interval is no tighter
    // than ±15 ppm, so the aging stays at 15 ppm throughout.
    @Test("a worse sample never overrides a better one; a better one does")
    func replacementRule() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline, policy: Self.fifteen)
        let good = timeline.anchor(bound: .milliseconds(5), server: "good")
        #expect(clock.offer(good).replacedAnchor)
        let worse = timeline.anchor(bound: .milliseconds(6), server: "worse")
        #expect(!clock.offer(worse).replacedAnchor)
        #expect(clock.anchor == good)
        #expect(try #require(clock.now()).server == "good")

        // An hour later the good anchor has aged to 5 + 54 = 59 ms: a fresh 60 ms sample is still
        // worse, a fresh 58 ms sample is better.
        timeline.advance(by: .seconds(3600))
        #expect(!clock.offer(timeline.anchor(bound: .milliseconds(60), server: "sixty")).replacedAnchor)
        #expect(clock.anchor?.server == "good")
        let better = timeline.anchor(bound: .milliseconds(58), server: "better")
        #expect(clock.offer(better).replacedAnchor)
        #expect(clock.anchor == better)
        #expect(try #require(clock.now()).server == "better")

        // A sample offered late is aged from its own instant: 1 ms an hour ago is 1 + 54 = 55 ms
        // now, tighter than the 58 ms anchor, so it wins.
        let lateButTight = Anchor(
            trueTime: good.trueTime, monotonic: good.monotonic, errorBound: .milliseconds(1), source: .ntp,
            server: "late")
        #expect(clock.offer(lateButTight).replacedAnchor)
        #expect(clock.anchor?.server == "late")
    }

    @Test("an old anchor is aged from its own instant when compared")
    func staleAnchorAgedFromItsInstant() {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline, policy: Self.fifteen)
        let early = timeline.anchor(bound: .milliseconds(1), server: "early")
        timeline.advance(by: .seconds(3600))
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(40), server: "fresh")).replacedAnchor)
        // Aged to now, the early anchor is 1 + 54 = 55 ms: worse than 40 ms.
        #expect(!clock.offer(early).replacedAnchor)
        #expect(clock.anchor?.server == "fresh")
        let earlyTight = Anchor(
            trueTime: early.trueTime, monotonic: early.monotonic, errorBound: .microseconds(100),
            source: .ntp,
            server: "early-tight")
        // 0.1 + 54 = 54.1 ms: still worse than 40 ms.
        #expect(!clock.offer(earlyTight).replacedAnchor)
    }

    @Test("invalid anchors are refused and every non-restored sample feeds the frequency history")
    func invalidAnchorsAndDriftFeeding() {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        #expect(!clock.offer(timeline.anchor(bound: .milliseconds(-1))).replacedAnchor)
        #expect(clock.anchor == nil)
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(2))).replacedAnchor)
        timeline.advance(by: .seconds(60))
        // Rejected, still fed.
        #expect(!clock.offer(timeline.anchor(bound: .milliseconds(500))).replacedAnchor)
        #expect(clock.frequencyTracker.points.count == 2)
        timeline.advance(by: .seconds(60))
        clock.offer(timeline.anchor(bound: .milliseconds(1), source: .restored))
        #expect(clock.frequencyTracker.points.count == 2)
    }

    // Syncs every 5 minutes for 20 minutes against a monotonic clock running 50 ppm fast, each
    // with a 1 ms bound and up to 0.3 ms of error. The widest pair, 20 minutes, bounds the
    // frequency to ±2 ms / 1200 s = ±1.7 ppm, widened by the 1 ppm wander jump and 10 ppm/h × 20
    // min; the intersection of all pairs is about that. Corrected, the estimate an hour later is
    // within a few ms (uncorrected it would be 180 ms off); the bound grows by the half-width plus
    // 10 ppm/h × 1 h² / 2 = 18 ms of wander, well under the 1.8 s the 500 ppm prior would give.
    @Test("a +50 ppm monotonic clock is measured within its interval and corrected; the bound tightens")
    func driftCorrection() throws {
        let timeline = SimulatedTimeline(monotonicDriftPPM: 50)
        let clock = makeClock(timeline)
        let errors: [Duration] = [
            .microseconds(120), .microseconds(-300), .microseconds(270), .microseconds(-90), .zero,
        ]
        for (i, error) in errors.enumerated() {
            if i > 0 { timeline.advance(by: .seconds(300)) }
            var anchor = timeline.anchor(bound: .milliseconds(1))
            anchor.trueTime = anchor.trueTime + error
            clock.offer(anchor)
        }
        let frequency = clock.frequency()
        #expect(frequency.isMeasured)
        #expect(frequency.syncCount == 5)
        // 50 ppm fast: true = monotonic × (1 − f) with f = 50/(1 + 50e-6) ppm, inside the interval.
        let f = 50 / (1 + 50e-6)
        #expect(frequency.lowerPPM <= f && f <= frequency.upperPPM)
        #expect(abs(frequency.ppm - f) < 3)
        #expect(frequency.growthRatePPM < 8)

        timeline.advance(by: .seconds(3600))
        let estimate = try #require(clock.now())
        #expect(estimate.isDriftCorrected)
        #expect(estimate.contains(timeline.trueTime))
        #expect(abs(estimate.time - timeline.trueTime) < .milliseconds(12))
        #expect(estimate.errorBound < .milliseconds(60))

        // One sync and a 15 ppm prior (the old default tolerance): an hour later the truth, 180 ms
        // away, is outside the 55 ms bound. The 500 ppm default covers it (1.8 s).
        for (policy, covers) in [(Self.fifteen, false), (NetworkClock.ClockPolicy(), true)] {
            let single = SimulatedTimeline(monotonicDriftPPM: 50)
            let clock = makeClock(single, policy: policy)
            clock.offer(single.anchor(bound: .milliseconds(1)))
            single.advance(by: .seconds(3600))
            let naive = try #require(clock.now())
            #expect(!naive.isDriftCorrected)
            #expect(naive.contains(single.trueTime) == covers)
        }
    }

    @Test("four threads read consistently while another thread updates")
    func concurrentReaders() throws {
        let timeline = SimulatedTimeline()
        let clock = makeClock(timeline)
        clock.offer(timeline.anchor(bound: .milliseconds(1)))
        let truth = timeline.trueTime
        let base = timeline.monotonicReading
        // An atomic, not a Mutex: ThreadSanitizer cannot see the ordering of a contended Mutex on
        // Linux (see .ci/tsan.supp) and this test runs under it in CI.
        let failures = Atomic<Int>(0)
        let finished = Atomic<Bool>(false)
        let updater: @Sendable () -> Void = {
            for i in 0..<10_000 {
                // Anchors at different instants on the same line through the truth, so that the
                // fields of two anchors mixed by a torn read would give a different time.
                let shift = Duration.microseconds(Int64(i % 1000))
                clock.offer(
                    Anchor(
                        trueTime: truth + shift, monotonic: base + shift,
                        errorBound: .microseconds(Int64(1_000 - i % 900)), source: .ntp, server: "s\(i % 7)"))
            }
            finished.store(true, ordering: .releasing)
        }
        let reader: @Sendable () -> Void = {
            var bad = 0
            while !finished.load(ordering: .acquiring) {
                guard let estimate = clock.now(), estimate.time == truth,
                    estimate.errorBound <= .milliseconds(1)
                else {
                    bad += 1
                    continue
                }
            }
            failures.add(bad, ordering: .relaxed)
        }
        runOnThreads([updater, reader, reader, reader, reader])
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
