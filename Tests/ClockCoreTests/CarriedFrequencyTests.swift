import NetClockPlatform
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// The oscillator's frequency carried across a reboot on simulated machines: a first boot measures
/// a +30 ppm oscillator from two syncs three hours apart; a second boot of the same oscillator
/// (recalibrated by up to the allowance) takes that as a widened prior
/// (``AnchoredClock/carryFrequency(fromEarlierBoot:carried:)``), never as points.
@Suite("CarriedFrequency")
struct CarriedFrequencyTests {
    /// Each sync's bound: what a sync over the internet typically gives.
    static let bound = Duration.milliseconds(5)

    private static func makeClock(_ machine: SimulatedMachine, policy: ClockPolicy = ClockPolicy())
        -> AnchoredClock
    {
        AnchoredClock(
            monotonic: machine.clock, wall: machine.wallClock, policy: policy,
            kernel: KernelClockReader.fixed(ScriptedKernel.unsynchronized), timeBase: machine.clock)
    }

    /// The first boot: two syncs three hours apart of an oscillator 30 ppm fast. Returns its
    /// history and the half-width of its one pair (sum of the bounds over the awake span).
    private static func firstBoot() throws -> (
        history: FrequencyTracker, pairHalfWidth: Double, end: UnixTime
    ) {
        let machine = SimulatedMachine(oscillatorPPM: 30)
        let clock = makeClock(machine)
        clock.offer(machine.anchor(bound: bound))
        machine.advance(by: .seconds(3 * 3600))
        clock.offer(machine.anchor(bound: bound))
        let history = clock.frequencyTracker
        let first = try #require(history.points.first)
        let last = try #require(history.points.last)
        let span = (last.base.awake - first.base.awake).secondsDouble
        return (history, (first.errorBound + last.errorBound).secondsDouble / span, machine.trueTime)
    }

    /// A second boot of the oscillator, `shiftPPM` away from the first's (recalibration plus
    /// wander), an hour after the first boot ended, 40 s after power-on, with the first boot's
    /// frequency carried when `carries`; then its first sync.
    private static func secondBoot(
        after first: (history: FrequencyTracker, pairHalfWidth: Double, end: UnixTime), shiftPPM: Double,
        carries: Bool = true, policy: ClockPolicy = ClockPolicy()
    ) -> (machine: SimulatedMachine, clock: AnchoredClock) {
        let machine = SimulatedMachine(
            start: first.end + .seconds(3600), awakeOrigin: .seconds(40), oscillatorPPM: 30 + shiftPPM)
        let clock = makeClock(machine, policy: policy)
        if carries {
            clock.carryFrequency(
                fromEarlierBoot: first.history.points,
                carried: first.history.carried.map { $0.lower...$0.upper })
        }
        clock.offer(machine.anchor(bound: bound))
        return (machine, clock)
    }

    // Before: the first hour after the reboot grows the bound at the 500 ppm prior, 1.8 s. After:
    // at the first boot's pair half-width (10 ms over 3 h, 0.926 ppm) plus the 10 ppm wander limit
    // plus the 10 ppm reboot allowance, 20.926 ppm: 75.3 ms. The correction is the first boot's
    // +30 ppm. Exact to rounding: the growth is linear (the rate limit is the half-width).
    @Test("after a reboot the bound grows at the carried half-width, not the 500 ppm prior")
    func growthAfterReboot() throws {
        let first = try Self.firstBoot()
        let expected = first.pairHalfWidth + 20e-6
        let (machine, clock) = Self.secondBoot(after: first, shiftPPM: 0)
        let (plainMachine, plain) = Self.secondBoot(after: first, shiftPPM: 0, carries: false)
        let frequency = clock.frequency()
        #expect(frequency.isMeasured && frequency.isCarried && frequency.syncCount == 1)
        #expect(abs(frequency.growthRate - expected) < 1e-12, "\(frequency.growthRatePPM) ppm")
        #expect(abs(frequency.frequencyError - 30e-6 / (1 + 30e-6)) < 1e-12)
        #expect(!plain.frequency().isMeasured && plain.boundGrowthRate == 500e-6)
        let start = try #require(clock.now())
        let plainStart = try #require(plain.now())
        #expect(start.isDriftCorrected && !plainStart.isDriftCorrected)
        machine.advance(by: .seconds(3600))
        plainMachine.advance(by: .seconds(3600))
        let grown = try #require(clock.now()).errorBound - start.errorBound
        let plainGrown = try #require(plain.now()).errorBound - plainStart.errorBound
        // 3600 s of true time is 3600.108 s of this oscillator's awake time.
        let awake = 3600 * (1 + 30e-6)
        #expect(abs(grown.secondsDouble - expected * awake) < 1e-8, "\(grown)")
        #expect(abs(plainGrown.secondsDouble - 500e-6 * awake) < 1e-8, "\(plainGrown)")
        // Nothing of the earlier boot is a point of this one.
        #expect(clock.frequencyTracker.points.count == 1)
    }

    // The truth stays inside the bound for six hours offline whether the new boot's oscillator is
    // where the first measured it or 15 ppm either side (within the 20 ppm of wander and
    // recalibration allowed); and for six more hours after this boot's second sync, whose pair is
    // intersected with the carried interval (never looser than it).
    @Test(
        "the truth stays inside over hours offline, the oscillator moved within the allowance",
        arguments: [0.0, 15, -15, 19, -19])
    func truthInside(shiftPPM: Double) throws {
        let first = try Self.firstBoot()
        let (machine, clock) = Self.secondBoot(after: first, shiftPPM: shiftPPM)
        for _ in 0..<36 {
            machine.advance(by: .seconds(600))
            let estimate = try #require(clock.now())
            #expect(estimate.contains(machine.trueTime), "\(shiftPPM) ppm: \(estimate) misses the truth")
        }
        let carried = clock.frequency().growthRate
        let before = clock.frequency()
        if case .discontinuous = clock.offer(machine.anchor(bound: Self.bound)) {
            Issue.record("\(shiftPPM) ppm: the second sync was a discontinuity")
        }
        #expect(clock.frequencyReset(since: before) == nil)
        let both = clock.frequency()
        #expect(both.isCarried && both.syncCount == 2 && both.growthRate <= carried)
        for _ in 0..<36 {
            machine.advance(by: .seconds(600))
            let estimate = try #require(clock.now())
            #expect(estimate.contains(machine.trueTime), "\(shiftPPM) ppm: \(estimate) misses the truth")
        }
    }

    // The edge: recalibrated 40 ppm away, beyond the 20.9 ppm the carried interval allows. The
    // truth leaves the bound (the model does not hold), and the next sync, an hour later, finds
    // the prediction 144 ms off inside an 80 ms bound: a discontinuity, which resets the history,
    // drops the carried interval and reports the frequency it had (+30 ppm). Two more syncs learn
    // the new +70 ppm.
    @Test("a move beyond the allowance is caught by the next sync as a discontinuity")
    func beyondAllowance() throws {
        let first = try Self.firstBoot()
        let (machine, clock) = Self.secondBoot(after: first, shiftPPM: 40)
        machine.advance(by: .seconds(3600))
        let before = clock.frequency()
        let outcome = clock.offer(machine.anchor(bound: Self.bound))
        guard case .discontinuous = outcome else {
            Issue.record("expected a discontinuity, got \(outcome)")
            return
        }
        let reset = try #require(clock.frequencyReset(since: before))
        #expect(reset.code == "discontinuity")
        #expect(abs(try #require(reset.previousPPM) - 30) < 0.01)
        let after = clock.frequency()
        #expect(!after.isCarried && !after.isMeasured && after.resetCount == 1)
        #expect(clock.boundGrowthRate == 500e-6)
        for _ in 0..<2 {
            machine.advance(by: .seconds(1800))
            clock.offer(machine.anchor(bound: Self.bound))
        }
        let relearned = clock.frequency()
        #expect(relearned.isMeasured && !relearned.isCarried && abs(relearned.ppm - 70) < 3)
    }

    // The allowance is a policy setting: at 0 the carried half-width is the pair's plus the
    // wander limit alone; at 400 ppm the interval is clamped to the ±500 ppm prior on one side.
    @Test("the reboot allowance widens the carried interval by exactly its value")
    func allowanceSetting() throws {
        let first = try Self.firstBoot()
        let none = Self.secondBoot(after: first, shiftPPM: 0, policy: ClockPolicy(rebootAllowancePPM: 0))
            .clock
        #expect(abs(none.boundGrowthRate - (first.pairHalfWidth + 10e-6)) < 1e-12)
        let wide = Self.secondBoot(after: first, shiftPPM: 0, policy: ClockPolicy(rebootAllowancePPM: 480))
            .clock
        let frequency = wide.frequency()
        // [30 − 490.9, 30 + 490.9] ppm clamped to the prior's +500: [−460.9, 500].
        #expect(abs(frequency.upperPPM - 500) < 1e-6)
        #expect(abs(frequency.lowerPPM - (30e-6 / (1 + 30e-6) - first.pairHalfWidth - 490e-6) * 1e6) < 1e-6)
        // Not finite: the default.
        #expect(ClockPolicy(rebootAllowancePPM: .nan).rebootAllowanceFraction == 10e-6)
        #expect(ClockPolicy(rebootAllowancePPM: -3).rebootAllowanceFraction == 0)
    }
}
