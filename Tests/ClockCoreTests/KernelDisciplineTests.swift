import Foundation
import NetClockPlatform
import SNTP
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// The anchored clock while the kernel's time discipline slews the boot-time clock: the clock
/// extrapolates on the raw oscillator, so neither its estimate nor its bound follows the slew. The
/// discipline only prices the mapping of an anchor's boot-time instant onto the time base across a
/// distance (``KernelDiscipline/mappingRate``, ``KernelDiscipline/boundWidening``).
///
/// Before holdover, these tests asserted the opposite: while the kernel reported itself
/// unsynchronised or slewing, the bound grew at its 500 ppm slew limit.
@Suite("AnchoredClock and the kernel's discipline")
struct KernelDisciplineTests {
    private func makeClock(_ machine: SimulatedMachine, kernel: ScriptedKernel) -> AnchoredClock {
        AnchoredClock(
            monotonic: machine.clock, wall: machine.wallClock, kernel: kernel.source, timeBase: machine.clock)
    }

    // The oscillator runs 30 ppm fast and a daemon slews CLOCK_BOOTTIME 500 ppm faster still.
    // Two exact syncs (±100 µs) 10 minutes apart measure 29.999 ppm within ±0.33 ppm, widened by
    // the 1 ppm jump and 10 ppm/h × 10 min: ±3.0 ppm. Over the next 10 minutes offline the daemon
    // moves the boot-time clock 300 ms against the raw oscillator; the estimate stays within a microsecond of the
    // truth (the frequency is constant) and the bound grows by 600 s × 3.0 ppm plus 10 ppm/h ×
    // (600 s)² / 2 = 2.3 ms, not the 300 ms that following CLOCK_BOOTTIME would need.
    @Test("a daemon slewing CLOCK_BOOTTIME at 500 ppm moves neither the estimate nor the bound")
    func slewingFiveHundredPPM() throws {
        let machine = SimulatedMachine(oscillatorPPM: 30)
        machine.setKernelSlew(ppm: 500)
        let kernel = ScriptedKernel(ScriptedKernel.slewing(remaining: .milliseconds(2)))
        let clock = makeClock(machine, kernel: kernel)
        #expect(clock.offer(machine.anchor(bound: .microseconds(100))) == .adopted)
        // Taken at the reading's own instant: placed exactly, no widening.
        #expect(clock.anchor?.errorBound == .microseconds(100))
        machine.advance(by: .seconds(600))
        clock.offer(machine.anchor(bound: .microseconds(100)))
        let frequency = clock.frequency()
        #expect(frequency.isMeasured)
        #expect(abs(frequency.ppm - 30 / (1 + 30e-6)) < 0.01)
        #expect(abs(frequency.growthRatePPM - 3.0) < 0.01)
        let boot0 = machine.bootReading
        let synced = try #require(clock.now())
        for _ in 1...600 {
            machine.advance(by: .seconds(1))
            let estimate = try #require(clock.now())
            #expect(estimate.contains(machine.trueTime), "outside at \(estimate.age)")
            #expect(abs(estimate.time - machine.trueTime) < .microseconds(1))
        }
        let end = try #require(clock.now())
        // Meanwhile the boot-time clock ran 318 ms ahead of the truth: 18 ms from the oscillator,
        // 600.018 s × 500 ppm = 300 ms from the daemon's slew.
        let bootAhead = (machine.bootReading - boot0) - .seconds(600)
        #expect(abs(bootAhead - .milliseconds(318)) < .milliseconds(1))
        let growth = end.errorBound - synced.errorBound
        #expect(abs(growth - .microseconds(2_300)) < .microseconds(50), "grew \(growth)")
    }

    // The schedule asks how the bound grows on the time base (`estimate(afterElapsed:)`): as the
    // measured frequency interval says, 2.3 ms over 600 s, as `now()` then reads it. Mapping a
    // boot-time instant 600 s ahead instead (`estimate(at:)`) charges the daemon's possible 500 ppm
    // (and the kernel's 0 ppm here) over the distance, 300 ms: what made a demand-driven clock sync
    // every few minutes whatever its oscillator (FleetSimulation.md).
    @Test("the bound a schedule reads ahead grows at the measured frequency, not at the slew limit")
    func boundAheadOnTheTimeBase() throws {
        let machine = SimulatedMachine(oscillatorPPM: 30)
        let clock = makeClock(machine, kernel: ScriptedKernel(ScriptedKernel.slewing(remaining: .zero)))
        clock.offer(machine.anchor(bound: .microseconds(100)))
        machine.advance(by: .seconds(600))
        clock.offer(machine.anchor(bound: .microseconds(100)))
        let synced = try #require(clock.now())
        let ahead = try #require(clock.estimate(afterElapsed: .seconds(600)))
        let mapped = try #require(clock.estimate(at: machine.bootReading + .seconds(600)))
        machine.advance(by: .seconds(600))
        let later = try #require(clock.now())
        #expect(abs(ahead.errorBound - later.errorBound) < .microseconds(10), "\(ahead) vs \(later)")
        #expect(abs((ahead.errorBound - synced.errorBound) - .microseconds(2_300)) < .microseconds(50))
        #expect(mapped.errorBound - ahead.errorBound >= .milliseconds(300), "\(mapped) vs \(ahead)")
    }

    @Test(
        "a phase still to slew widens an anchor placed across a distance (PLL offset or adjtime remainder), not one placed at once",
        arguments: [
            (Duration.milliseconds(-4), Duration.zero, Duration.milliseconds(4)),
            (.microseconds(250), .milliseconds(3), .microseconds(3_250)),
        ])
    func widening(offset: Duration, singleShot: Duration, widening: Duration) throws {
        var state = ScriptedKernel.slewing(remaining: offset)
        state.singleShotOffset = singleShot
        // At once: no distance to map across.
        let machine = SimulatedMachine()
        let clock = makeClock(machine, kernel: ScriptedKernel(state))
        clock.offer(machine.anchor(bound: .milliseconds(1)))
        #expect(clock.anchor?.errorBound == .milliseconds(1))
        // Offered a second late: the slew may have moved the boot-time clock meanwhile, at up to
        // 480 ppm (the kernel's frequency) + 500 ppm (a daemon changing it, or adjtime) = 980 µs,
        // and part of the remaining phase.
        let late = SimulatedMachine()
        let lateClock = makeClock(late, kernel: ScriptedKernel(state))
        let anchor = late.anchor(bound: .milliseconds(1))
        late.advance(by: .seconds(1))
        lateClock.offer(anchor)
        let placed = try #require(lateClock.anchor?.errorBound)
        let expected = Duration.milliseconds(1) + widening + .microseconds(980)
        #expect(placed >= expected && placed <= expected + .nanoseconds(2))
    }

    // chrony slews fast by moving `tick` off nominal: 10 100 µs instead of 10 000 µs is 1 % faster.
    // The boot-time clock then runs 1 % fast; the raw oscillator does not, so one sync's bound
    // grows at the 500 ppm prior and still holds the truth, and only the mapping rate includes the
    // tick: 12.5 + 500 + 10 000 ppm.
    @Test("a tick off nominal adds to the mapping rate only; the bound does not follow the slew")
    func tickOffNominal() throws {
        var state = ScriptedKernel.synchronized
        state.tick = .microseconds(10_100)
        #expect(abs(KernelDiscipline(state).mappingRate - 10_512.5e-6) < 1e-12)
        let machine = SimulatedMachine()
        machine.setKernelSlew(ppm: 10_000)
        let clock = makeClock(machine, kernel: ScriptedKernel(state))
        clock.offer(machine.anchor(bound: .milliseconds(1)))
        #expect(abs(clock.boundGrowthRate - 500e-6) < 1e-12)
        for _ in 1...60 {
            machine.advance(by: .seconds(1))
            let estimate = try #require(clock.now())
            #expect(estimate.contains(machine.trueTime))
            #expect(abs(estimate.time - machine.trueTime) < .microseconds(1))
        }
        #expect(try #require(clock.now()).errorBound <= .milliseconds(31) + .nanoseconds(2))
    }

    // Whatever the kernel says, the bound grows at the prior until a second sync, then at what the
    // two syncs measured: 1 ms + 100 s × 500 ppm = 51 ms before; after an exact second sync
    // (±1 ms) 100 s later, ±(2 ms / 100 s + 1 ppm + 10 ppm/h × 100 s) = ±21.3 ppm.
    @Test("an unsynchronised kernel: the bound grows at the prior, then at the measured frequency")
    func unsynchronized() throws {
        let machine = SimulatedMachine(oscillatorPPM: -12)
        let clock = makeClock(machine, kernel: ScriptedKernel(ScriptedKernel.unsynchronized))
        clock.offer(machine.anchor(bound: .milliseconds(1)))
        #expect(clock.boundGrowthRate == 500e-6)
        machine.advance(by: .seconds(100))
        let estimate = try #require(clock.now())
        #expect(
            estimate.errorBound >= .milliseconds(51) - .microseconds(1)
                && estimate.errorBound <= .milliseconds(51))
        #expect(!estimate.isDriftCorrected)
        #expect(clock.kernelDiscipline.state?.isSynchronized == false)
        clock.offer(machine.anchor(bound: .milliseconds(1)))
        #expect(abs(clock.boundGrowthRate * 1e6 - 21.28) < 0.01)
        machine.advance(by: .seconds(100))
        let later = try #require(clock.now())
        #expect(later.isDriftCorrected)
        #expect(later.contains(machine.trueTime))
        #expect(later.errorBound < .microseconds(3_200))
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
        #expect(KernelDiscipline(nil).mappingRate == 500e-6)
        #expect(KernelDiscipline(nil).boundWidening == .zero)
        #expect(abs(KernelDiscipline(ScriptedKernel.synchronized).mappingRate - 512.5e-6) < 1e-15)
        #expect(KernelDiscipline(ScriptedKernel.unsynchronized).mappingRate == 500e-6)
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
            // The time base read together: boot = awake-ish + suspended, in order, unchanged epoch.
            let sample = Syscalls.timeBaseSample()
            print(
                "time base: boot \(sample.boot) ns, raw \(sample.awake) ns, suspended \(sample.suspended) ns,",
                "pairing ±\(sample.uncertainty) ns, epoch \(sample.epoch)")
            #expect(sample.suspended >= -sample.uncertainty)
            #expect(sample.uncertainty > 0 && sample.uncertainty < 1_000_000)
            #expect(sample.epoch == Syscalls.suspendEpoch())
            let later = Syscalls.timeBaseSample()
            #expect(later.awake >= sample.awake && later.boot >= sample.boot)
        #else
            #expect(Syscalls.kernelClockState() == nil)
        #endif
    }
}
