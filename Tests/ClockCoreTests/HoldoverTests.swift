import Foundation
import NetClockPlatform
import SNTP
import NetClockTestSupport
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// The anchored clock between syncs on a simulated machine (``SimulatedMachine``): suspend,
/// wall-clock steps, the growth model, frequency resets and restoring the time base from a file.
@Suite("Holdover")
struct HoldoverTests {
    private func makeClock(
        _ machine: SimulatedMachine, policy: NetworkClock.ClockPolicy = NetworkClock.ClockPolicy()
    ) -> AnchoredClock {
        AnchoredClock(
            monotonic: machine.clock, wall: machine.wallClock, policy: policy,
            kernel: KernelClockReader.fixed(ScriptedKernel.unsynchronized), timeBase: machine.clock)
    }

    /// Syncs every `spacing` for `count` syncs with the exact time and bound `bound`.
    private func sync(
        _ clock: AnchoredClock, _ machine: SimulatedMachine, count: Int, spacing: Duration,
        bound: Duration = .microseconds(200)
    ) {
        for index in 0..<count {
            if index > 0 { machine.advance(by: spacing) }
            clock.offer(machine.anchor(bound: bound))
        }
    }

    // H(x) = ∫₀ˣ min(h + ω·u, R) du, compared with a midpoint-rule integral: quadratic to the knee,
    // linear beyond, and the increase over a stretch sums to the whole.
    @Test("the growth model integrates min(halfWidth + ω·u, rateLimit)")
    func growthModel() {
        let aging = HoldoverAging(
            frequencyError: 3e-6, halfWidth: 2e-6, wanderRate: 1e-9, rateLimit: 12e-6, suspendTolerance: 1e-4,
            suspendResolution: .seconds(1), isMeasured: true, reference: .seconds(500))
        func integral(_ x: Double) -> Double {
            let steps = 100_000
            let width = x / Double(steps)
            var sum = 0.0
            for k in 0..<steps {
                let u: Double = (Double(k) + 0.5) * width
                let rate: Double = min(2e-6 + 1e-9 * u, 12e-6)
                sum += width * rate
            }
            return sum
        }
        for x in [0.0, 60, 3600, 10_000, 86_400] {
            #expect(abs(aging.phaseAllowance(seconds: x) - integral(x)) < 1e-9 * max(1, x * 1e-5), "at \(x)")
        }
        // The knee lies at (R − h)/ω = 10 000 s.
        #expect(abs(aging.phaseIncrease(from: 0, by: 20_000) - integral(20_000)) < 1e-9)
        #expect(
            abs(
                aging.phaseIncrease(from: 0, by: 7_000) + aging.phaseIncrease(from: 7_000, by: 8_000)
                    - aging.phaseAllowance(seconds: 15_000)) < 1e-12)
        // An anchor at the reference aged over 1 h awake: H(3600 s), plus 1 ns rounding.
        let start = TimeBaseInstant(awake: .seconds(500))
        let later = TimeBaseInstant(awake: .seconds(4100))
        let grown = aging.growth(from: start, to: later)
        #expect(abs(grown.secondsDouble - integral(3600)) < 3e-9)
        // Suspended for an hour first: H(7200) − H(3600), plus 100 ppm of the hour and the 1 s.
        let suspended = TimeBaseInstant(awake: .seconds(4100), suspended: .seconds(3600))
        let expected = integral(7200) - integral(3600) + 0.36 + 1
        #expect(abs(aging.growth(from: start, to: suspended).secondsDouble - expected) < 1e-8)
        // Symmetric: the same stretch backwards grows the same.
        #expect(aging.growth(from: later, to: start) == grown)
        // A few nanoseconds of suspended time is how CLOCK_BOOTTIME and CLOCK_MONOTONIC reads pair
        // up, not a suspend: no 1 s. Five milliseconds is a suspend: the 1 s is added.
        let jitter = TimeBaseInstant(awake: .seconds(4100), suspended: .nanoseconds(40))
        #expect(aging.growth(from: start, to: jitter) < grown + .microseconds(1))
        let resumed = TimeBaseInstant(awake: .seconds(4100), suspended: .milliseconds(5))
        #expect(aging.growth(from: start, to: resumed) >= grown + .seconds(1))
        // The prior grows linearly anywhere: 3600 s × 500 ppm = 1.8 s (rounded up, plus 1 ns).
        let prior = HoldoverAging.prior(NetworkClock.ClockPolicy())
        let linear = prior.growth(from: start, to: later)
        #expect(linear >= .seconds(1.8) && linear <= .seconds(1.8) + .nanoseconds(2))
    }

    // A laptop: synced every 10 minutes for an hour, then suspended for 8 hours in a cold bag (the
    // oscillator is stopped meanwhile; the kernel measures the suspend with the RTC, 0.6 s short),
    // then awake for an hour. The first now() after the resume sees the new suspend epoch and reads
    // the clocks in full; it republishes, so the next one takes the fast path again, with the same
    // result. Truth inside throughout; the suspend adds 100 ppm of it plus 1 s to the bound.
    @Test("a suspend is counted from the kernel's suspended time, with its own tolerance")
    func suspend() throws {
        let machine = SimulatedMachine(oscillatorPPM: 45)
        let clock = makeClock(machine)
        sync(clock, machine, count: 7, spacing: .seconds(600))
        let beforeSuspend = try #require(clock.now())
        machine.suspend(for: .seconds(8 * 3600), measuredAs: .seconds(8 * 3600) - .milliseconds(600))
        let afterResume = try #require(clock.now())
        #expect(afterResume.contains(machine.trueTime))
        #expect(afterResume.age - beforeSuspend.age == .seconds(8 * 3600) - .milliseconds(600))
        // 100 ppm of the measured 28 799.4 s, plus the 1 s resolution; no awake time has passed.
        let suspendCost = afterResume.errorBound - beforeSuspend.errorBound
        let expected = Duration.nanoseconds(2_879_940_000) + .seconds(1)
        #expect(suspendCost >= expected && suspendCost <= expected + .nanoseconds(2), "\(suspendCost)")
        let again = try #require(clock.now())
        #expect(again == afterResume)
        for _ in 0..<60 {
            machine.advance(by: .seconds(60))
            let estimate = try #require(clock.now())
            #expect(estimate.contains(machine.trueTime))
        }
    }

    @Test("a wall-clock step changes the suspend epoch once, never the time")
    func wallStep() throws {
        let machine = SimulatedMachine(oscillatorPPM: -20)
        let clock = makeClock(machine)
        sync(clock, machine, count: 3, spacing: .seconds(300))
        machine.advance(by: .seconds(30))
        let before = try #require(clock.now())
        machine.stepWallClock(by: .seconds(-86_400))
        let after = try #require(clock.now())
        #expect(after == before)
        #expect(try #require(clock.wallClockOffset()) > .seconds(86_399))
    }

    // Measured at −20 ppm, the oscillator moves to +30 ppm (far beyond the wander allowance). The
    // next sync, ten minutes later, is 30 ms away from the prediction (its bound is about 6 ms):
    // a discontinuity, the history is reset, the bound grows at the 500 ppm prior until two more
    // syncs measure the new frequency, and the clock says so (`frequencyReset`).
    @Test("a frequency change is detected at the next sync, reported, and learned again")
    func frequencyChange() throws {
        let machine = SimulatedMachine(oscillatorPPM: -20)
        let clock = makeClock(machine)
        sync(clock, machine, count: 4, spacing: .seconds(600))
        let measured = clock.frequency()
        #expect(measured.isMeasured && abs(measured.ppm + 20) < 0.1 && measured.resetCount == 0)
        machine.setOscillator(ppm: 30)
        machine.advance(by: .seconds(600))
        let outcome = clock.offer(machine.anchor(bound: .microseconds(200)))
        guard case .discontinuous = outcome else {
            Issue.record("expected a discontinuity, got \(outcome)")
            return
        }
        let reset = try #require(clock.frequencyReset(since: measured))
        #expect(reset.code == "discontinuity")
        #expect(abs(try #require(reset.previousPPM) + 20) < 0.1)
        #expect(clock.frequency().resetCount == 1 && !clock.frequency().isMeasured)
        #expect(clock.boundGrowthRate == 500e-6)
        sync(clock, machine, count: 2, spacing: .seconds(600))
        let relearned = clock.frequency()
        #expect(relearned.isMeasured && abs(relearned.ppm - 30) < 0.5)
        machine.advance(by: .seconds(3600))
        #expect(try #require(clock.now()).contains(machine.trueTime))
    }

    // The clock restores the anchor on its saved time-base instant and the frequency history, so a
    // new process continues exactly; a file from before holdover (no time base) has its anchor
    // placed from the boot-time instant at the kernel's possible slew over its age, and no history.
    @Test("restoring within a boot continues on the saved time base; an older file maps honestly")
    func restore() throws {
        try inTemporaryDirectory { directory in
            let machine = SimulatedMachine(oscillatorPPM: 70)
            let store = AnchorStore(
                path: directory + "/anchor.json", bootID: { "boot" }, monotonic: machine.clock,
                wall: machine.wallClock)
            let clock = makeClock(machine)
            sync(clock, machine, count: 4, spacing: .seconds(900))
            try clock.save(to: store)
            machine.advance(by: .seconds(1800))
            let next = makeClock(machine)
            _ = try next.restore(from: store).get()
            #expect(next.now()?.time == clock.now()?.time)
            #expect(next.now()?.errorBound == clock.now()?.errorBound)
            #expect(next.frequency().syncCount == 4 && next.frequency().isMeasured)

            // The same file without the time base and history, as older builds wrote it.
            var text = try String(contentsOfFile: store.path, encoding: .utf8)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            var anchor = try #require(json["anchor"] as? [String: Any])
            anchor["time_base"] = nil
            var old = json
            old["anchor"] = anchor
            old["frequency"] = nil
            text = String(decoding: try JSONSerialization.data(withJSONObject: old), as: UTF8.self)
            try writeFile(text, to: store.path)
            let legacy = makeClock(machine)
            let restored = try legacy.restore(from: store).get()
            #expect(restored.timeBase == nil && restored.frequencyHistory.isEmpty)
            let estimate = try #require(legacy.now())
            #expect(estimate.contains(machine.trueTime))
            // Placed 30 minutes after its instant: + 1800 s × 500 ppm (the unsynchronised kernel's
            // possible slew), then aged at the prior.
            let original = try #require(clock.anchor)
            #expect(estimate.errorBound >= original.errorBound + .milliseconds(900) + .milliseconds(900))
        }
    }

    // The facade reports a reset from ingest as an event, after the discontinuity.
    @Test("the facade emits frequencyReset after the discontinuity that caused it")
    func facadeEvent() async throws {
        let machine = SimulatedMachine(oscillatorPPM: 10)
        var clock: NetworkClock? = NetworkClock(
            configuration: NetworkClock.Configuration(servers: []), monotonic: machine.clock,
            wall: machine.wallClock, kernel: .unavailable, timeBase: machine.clock)
        let events = try #require(clock?.events())
        func ingest() throws {
            let sent = machine.bootReading
            machine.advance(by: .milliseconds(2))
            _ = try #require(clock).ingest(
                serverTime: machine.trueTime - .milliseconds(1) - .microseconds(500), requestSent: sent,
                responseReceived: machine.bootReading)
        }
        for _ in 0..<3 {
            try ingest()
            machine.advance(by: .seconds(600))
        }
        machine.setOscillator(ppm: 200)
        machine.advance(by: .seconds(600))
        try ingest()
        clock = nil
        var all: [ClockEvent] = []
        for await event in events { all.append(event) }
        #expect(all.count == 2)
        guard all.count == 2, case .anchorDiscontinuity = all[0], case .frequencyReset(let reset) = all[1]
        else {
            Issue.record("expected a discontinuity then a frequency reset, got \(all)")
            return
        }
        #expect(reset.code == "discontinuity")
        #expect(all[1].description.hasPrefix("frequency reset: discontinuity (was 10.0 ppm, "))
    }
}
