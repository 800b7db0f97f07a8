import Foundation
import NetClockPlatform
import SNTP
import Testing

@testable import NetworkClock

/// The anchored clock while the kernel's time discipline slews the boot-time clock: the bound is
/// widened by the phase still to slew and grows at the kernel's 500 ppm slew limit until a sync
/// finds the kernel synchronised and steady.
@Suite("AnchoredClock and the kernel's discipline")
struct KernelDisciplineTests {
    private func makeClock(_ timeline: SimulatedTimeline, kernel: ScriptedKernel) -> AnchoredClock {
        AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock, kernel: kernel.source)
    }

    // The monotonic clock runs 500 ppm fast for 10 minutes of true time: it counts 600.3 s, so the
    // estimate is ahead of the truth by 300 ms. The kernel reports a slew in progress with 2 ms
    // still to slew, so the first anchor's 1 ms bound is widened to 3 ms and grows at 500 ppm of
    // monotonic time: 3 ms + 600.3 s × 500 ppm = 303.15 ms at the end, just above the error (the
    // margin, 3 ms + 0.25 µs per second, is smallest at the start). Checked at every second.
    @Test("500 ppm fast for 10 minutes while the kernel slews: the truth stays inside the bound")
    func slewingFiveHundredPPM() throws {
        let timeline = SimulatedTimeline(monotonicDriftPPM: 500)
        let kernel = ScriptedKernel(ScriptedKernel.slewing(remaining: .milliseconds(2)))
        let clock = makeClock(timeline, kernel: kernel)
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(1))) == .adopted)
        #expect(clock.anchor?.errorBound == .milliseconds(3))
        #expect(clock.boundGrowthRate == 500e-6)
        var smallestMargin = Duration.seconds(1)
        for _ in 1...600 {
            timeline.advance(by: .seconds(1))
            let estimate = try #require(clock.now())
            #expect(estimate.contains(timeline.trueTime), "outside at \(estimate.age)")
            smallestMargin = min(smallestMargin, estimate.errorBound - abs(estimate.time - timeline.trueTime))
        }
        let end = try #require(clock.now())
        let error = end.time - timeline.trueTime
        // Truncating the simulated monotonic clock to nanoseconds leaves the error within 1 ns.
        #expect(abs(error - .milliseconds(300)) <= .nanoseconds(1))
        #expect(abs(end.errorBound - .microseconds(303_150)) <= .nanoseconds(2))
        #expect(smallestMargin >= .milliseconds(3) && smallestMargin <= .milliseconds(3) + .microseconds(1))

        // The second sync finds the kernel synchronised and steady: the new exact anchor lies inside
        // the aged interval and is adopted, and from now on the bound grows at the 15 ppm tolerance:
        // 1 ms + 100.05 s (monotonic) × 15 ppm = 2.50075 ms after 100 s of true time.
        kernel.set(ScriptedKernel.synchronized)
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(1))) == .adopted)
        #expect(abs(clock.boundGrowthRate - 15e-6) < 1e-15)
        timeline.advance(by: .seconds(100))
        let later = try #require(clock.now())
        #expect(abs(later.errorBound - .nanoseconds(2_500_750)) <= .nanoseconds(1))
    }

    // The same clock, but the kernel says it is synchronised and steady: the bound grows at the
    // configured 15 ppm (1 ms + 600.3 s × 15 ppm = 10.0045 ms after 10 minutes), far less than the
    // 300 ms the clock has run ahead, so the truth falls outside. The kernel's word is what
    // makes the slewing case sound; the tolerance alone is not enough for a 500 ppm clock.
    @Test("the converse: a synchronised kernel means the bound grows at the configured tolerance")
    func synchronizedUsesTolerance() throws {
        let timeline = SimulatedTimeline(monotonicDriftPPM: 500)
        let clock = makeClock(timeline, kernel: ScriptedKernel(ScriptedKernel.synchronized))
        clock.offer(timeline.anchor(bound: .milliseconds(1)))
        #expect(clock.anchor?.errorBound == .milliseconds(1))
        #expect(abs(clock.boundGrowthRate - 15e-6) < 1e-15)
        timeline.advance(by: .seconds(600))
        let estimate = try #require(clock.now())
        #expect(abs(estimate.errorBound - .nanoseconds(10_004_500)) <= .nanoseconds(1))
        #expect(!estimate.contains(timeline.trueTime))

        // With a true 15 ppm clock, 10 minutes give exactly 1 ms + 9 ms.
        let steady = SimulatedTimeline()
        let steadyClock = makeClock(steady, kernel: ScriptedKernel(ScriptedKernel.synchronized))
        steadyClock.offer(steady.anchor(bound: .milliseconds(1)))
        steady.advance(by: .seconds(600))
        let bound = try #require(steadyClock.now()).errorBound
        #expect(bound >= .milliseconds(10) && bound <= .milliseconds(10) + .nanoseconds(1))
    }

    @Test("an unsynchronised kernel ages the bound at 500 ppm and suspends drift correction")
    func unsynchronized() throws {
        let timeline = SimulatedTimeline()
        let kernel = ScriptedKernel(ScriptedKernel.unsynchronized)
        let clock = makeClock(timeline, kernel: kernel)
        clock.offer(timeline.anchor(bound: .milliseconds(1)))
        #expect(clock.boundGrowthRate == 500e-6)
        timeline.advance(by: .seconds(100))
        let estimate = try #require(clock.now())
        // 1 ms + 100 s × 500 ppm = 51 ms (the rate is not exact in binary: up to 1 ns more).
        #expect(
            estimate.errorBound >= .milliseconds(51)
                && estimate.errorBound <= .milliseconds(51) + .nanoseconds(1))
        #expect(!estimate.isDriftCorrected)
        #expect(clock.kernelDiscipline.state?.isSynchronized == false)
    }

    @Test(
        "the phase still to slew widens the new anchor: PLL offset (µs or ns) and adjtime remainder",
        arguments: [
            (Duration.milliseconds(-4), Duration.zero, Duration.milliseconds(4)),
            (.microseconds(250), .milliseconds(3), .microseconds(3_250)),
        ])
    func widening(offset: Duration, singleShot: Duration, widening: Duration) throws {
        let timeline = SimulatedTimeline()
        var state = ScriptedKernel.slewing(remaining: offset)
        state.singleShotOffset = singleShot
        let clock = makeClock(timeline, kernel: ScriptedKernel(state))
        clock.offer(timeline.anchor(bound: .milliseconds(1)))
        #expect(clock.anchor?.errorBound == .milliseconds(1) + widening)
        #expect(clock.now()?.errorBound == .milliseconds(1) + widening)
    }

    // chrony slews fast by moving `tick` off nominal: 10 100 µs instead of 10 000 µs is 1 % faster,
    // so the bound grows at 500 ppm + 10 000 ppm.
    @Test("a tick off nominal is a slew: the rate adds its offset to the 500 ppm limit")
    func tickOffNominal() throws {
        let timeline = SimulatedTimeline(monotonicDriftPPM: 10_000)
        var state = ScriptedKernel.synchronized
        state.tick = .microseconds(10_100)
        let clock = makeClock(timeline, kernel: ScriptedKernel(state))
        clock.offer(timeline.anchor(bound: .milliseconds(1)))
        #expect(abs(clock.boundGrowthRate - 10_500e-6) < 1e-12)
        for _ in 1...60 {
            timeline.advance(by: .seconds(1))
            #expect(try #require(clock.now()).contains(timeline.trueTime))
        }
    }

    // A sync that finds the kernel steady again must not shrink the bound retroactively: the kept
    // anchor is carried to the new instant at the old (500 ppm) rate first.
    @Test("rates change only from the sync on: a kept anchor is aged at the old rate first")
    func rateChangeIsNotRetroactive() throws {
        let timeline = SimulatedTimeline()
        let kernel = ScriptedKernel(ScriptedKernel.unsynchronized)
        let clock = makeClock(timeline, kernel: kernel)
        clock.offer(timeline.anchor(bound: .milliseconds(1)))
        timeline.advance(by: .seconds(100))
        let before = try #require(clock.now()).errorBound  // 51 ms
        kernel.set(ScriptedKernel.synchronized)
        // A loose sample that adds nothing: the anchor is kept, re-anchored at this instant.
        #expect(clock.offer(timeline.anchor(bound: .milliseconds(200))) == .kept)
        let after = try #require(clock.now()).errorBound
        #expect(after >= before && after <= before + .nanoseconds(2))
        timeline.advance(by: .seconds(100))
        let later = try #require(clock.now()).errorBound
        #expect(
            later - after >= .microseconds(1_500) && later - after <= .microseconds(1_500) + .nanoseconds(1))
    }

    @Test("kernel state: synchronised, slewing and the names of its flags")
    func stateRules() {
        #expect(ScriptedKernel.synchronized.isSynchronized)
        #expect(!ScriptedKernel.synchronized.isSlewing)
        #expect(!ScriptedKernel.unsynchronized.isSynchronized)
        var timeError = ScriptedKernel.synchronized
        timeError.clockState = KernelClockState.timeError
        #expect(!timeError.isSynchronized)
        #expect(timeError.clockStateName == "error")
        #expect(ScriptedKernel.slewing(remaining: .microseconds(-1)).isSlewing)
        #expect(KernelClockStatus(rawValue: 0x2041).names == ["pll", "unsync", "nano"])
        #expect(KernelDiscipline(nil).slewGrowthRate == nil)
        #expect(KernelDiscipline(nil).boundWidening == .zero)
        #expect(KernelDiscipline(ScriptedKernel.synchronized).slewGrowthRate == nil)
        #expect(KernelDiscipline(ScriptedKernel.unsynchronized).slewGrowthRate == 500e-6)
    }

    /// The real read on this machine: values within what the kernel allows. Linux clamps `freq` to
    /// ±500 ppm and the PLL offset to ±0.5 s (`MAXPHASE`), stops `maxerror` at 16 s
    /// (`NTP_PHASE_LIMIT`), accepts a tick within ±10 % of nominal, and returns a state 0…5.
    @Test("adjtimex on this machine reads plausible values")
    func realRead() throws {
        #if os(Linux)
            let state = try #require(Syscalls.kernelClockState())
            print(
                "adjtimex: state \(state.clockStateName) (\(state.clockState)), status [\(state.status.names.joined(separator: ","))],",
                "synchronized \(state.isSynchronized), offset \(state.offset), adjtime remaining \(state.singleShotOffset),",
                "freq \(state.frequencyPPM) ppm, maxerror \(state.maximumError), esterror \(state.estimatedError),",
                "tick \(state.tick) (nominal \(state.nominalTick))")
            #expect((0...5).contains(state.clockState))
            #expect(abs(state.frequencyPPM) <= 500)
            #expect(abs(state.offset) <= .milliseconds(500))
            #expect(state.maximumError >= .zero && state.maximumError <= .seconds(16))
            #expect(state.estimatedError >= .zero && state.estimatedError <= .seconds(16))
            #expect(state.nominalTick > .zero)
            #expect(state.tickRateOffset <= 0.1)
            #expect(
                state.isSynchronized == (state.clockState != 5 && !state.status.contains(.unsynchronized)))
            // And the default source of a boot-time clock is this kernel.
            let clock = AnchoredClock()
            clock.offer(
                Anchor(
                    trueTime: UnixTime(seconds: 1_780_000_000), monotonic: BootTimeClock().now(),
                    errorBound: .milliseconds(1), source: .ntp))
            #expect(clock.kernelDiscipline.state != nil)
        #else
            #expect(Syscalls.kernelClockState() == nil)
        #endif
    }
}
