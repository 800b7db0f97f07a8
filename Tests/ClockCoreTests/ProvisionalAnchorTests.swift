import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// A sync's provisional answers on the anchored clock (issue 43): published for ``AnchoredClock/now()``
/// at once, but no point of the frequency history and not what the store keeps; the sync's final
/// answer is taken against the anchor held before them, a withdrawal brings that anchor back (or
/// none), and a closed sync's late answer is refused.
@Suite struct ProvisionalAnchorTests {
    @Test func provisionalAnswersStandOnlyUntilTheSyncsOwn() throws {
        let timeline = SimulatedTimeline(start: UnixTime(seconds: 1_796_040_000))
        let clock = AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
        let sync = clock.beginProvisionalAnswers()
        #expect(clock.offerProvisional(timeline.anchor(bound: .milliseconds(20)), sync: sync) == .adopted)
        let provisional = try #require(clock.now())
        #expect(provisional.errorBound >= .milliseconds(20) && provisional.contains(timeline.trueTime))
        #expect(clock.snapshot().anchor == nil, "a provisional answer is what the store would keep")
        #expect(clock.frequency().syncCount == 0, "a provisional answer is a point of the frequency history")
        timeline.advance(by: .milliseconds(5))
        #expect(clock.offerProvisional(timeline.anchor(bound: .milliseconds(10)), sync: sync).replacedAnchor)
        // The final answer, looser than the provisional ones, is taken as it is: against no anchor.
        timeline.advance(by: .seconds(6))
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(30))) == .adopted)
        #expect(try #require(clock.now()).errorBound >= .milliseconds(30))
        #expect(clock.snapshot().anchor != nil && clock.frequency().syncCount == 1)
        // The sync is closed: a late provisional answer of it is refused.
        #expect(clock.offerProvisional(timeline.anchor(bound: .milliseconds(1)), sync: sync) == .refused)
        #expect(try #require(clock.now()).errorBound >= .milliseconds(30))
    }

    @Test func aWithdrawalBringsBackTheAnchorBeforeThemOrNone() throws {
        let timeline = SimulatedTimeline(start: UnixTime(seconds: 1_796_040_000))
        let clock = AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
        var sync = clock.beginProvisionalAnswers()
        clock.offerProvisional(timeline.anchor(bound: .milliseconds(20)), sync: sync)
        #expect(clock.now() != nil)
        clock.withdrawProvisional()
        #expect(clock.now() == nil, "a cold start's withdrawn answer stands")
        #expect(clock.offerProvisional(timeline.anchor(bound: .milliseconds(20)), sync: sync) == .refused)
        // With an anchor held before them, that anchor is back.
        clock.offer(timeline.anchor(bound: .milliseconds(40)))
        let held = try #require(clock.snapshot().anchor)
        sync = clock.beginProvisionalAnswers()
        clock.offerProvisional(timeline.anchor(bound: .milliseconds(5)), sync: sync)
        #expect(try #require(clock.now()).errorBound < .milliseconds(10))
        clock.withdrawProvisional()
        #expect(clock.snapshot().anchor == held)
        #expect(try #require(clock.now()).errorBound >= .milliseconds(40))
    }
}
