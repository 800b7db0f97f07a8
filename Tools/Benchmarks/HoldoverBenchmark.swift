import ClockCore
import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import TimeValues
import TimeDoubles

// `netclock-bench holdover`: how the anchored clock's bound holds up over hours and days without
// the network, on simulated time (a few seconds to run). Each trial is one machine
// (``HoldoverMachine``): an oscillator +80 ppm off with a ±2 ppm daily thermal cycle and a +6 ppm
// step somewhere in the second day, synced for three days at intervals of 1 minute to 2 hours
// (log-uniform) through round trips of 2–100 ms (log-uniform; the sample is off by up to half its
// round trip, its bound half the round trip plus 0.1 ms of root dispersion), with suspends of
// 0.5–10 hours now and then (5 % of the gaps; the RTC measures them 20 ppm fast, within ±0.9 s),
// then seven days offline: a kiosk that stays awake, and a phone in a drawer that sleeps 16 hours a
// day. The kernel is unsynchronised (no time daemon).
//
// Both designs see the same syncs: the holdover clock (raw oscillator plus suspended time,
// frequency from the sync history) and today's design (the anchored clock as it was: CLOCK_BOOTTIME
// with the bound growing at the kernel's 500 ppm slew limit while it is unsynchronised, no
// correction, successive syncs intersected). The truth is checked against every design's bound
// every simulated minute the machine is awake.

private struct HoldoverScenario {
    var name: String
    /// Hours of each offline day spent suspended (after the day's awake hours).
    var suspendedHoursPerDay: Double
}

private struct HoldoverDesign {
    var name: String
    var make: @Sendable (HoldoverMachine) -> AnchoredClock
}

/// One design's figures over one trial.
private struct HoldoverTrialResult {
    var samples = 0
    var inside = 0
    var worstRatio = 0.0
    var boundAfter: [Double] = []
    var errorAfter: [Double] = []
    var resets = 0
}

private let offlineMarks: [(label: String, seconds: Double)] = [
    ("1 h", 3600), ("1 day", 86_400), ("7 days", 7 * 86_400),
]

private let unsynchronizedKernel = KernelClockState(
    clockState: KernelClockState.timeError, status: [.unsynchronized], offset: .zero, frequencyPPM: 0,
    maximumError: .seconds(16), estimatedError: .seconds(16))

private let designs: [HoldoverDesign] = [
    HoldoverDesign(name: "holdover (raw oscillator + frequency)") { machine in
        AnchoredClock(
            monotonic: HoldoverBootClock(machine: machine), wall: HoldoverWallClock(machine: machine),
            kernel: .fixed(unsynchronizedKernel), timeBase: HoldoverTimeBase(machine: machine))
    },
    // Today's design: the boot-time clock as the time line, a 500 ppm tolerance that nothing ever
    // narrows (a wander jump of 1000 ppm makes every pair wider than it), no suspend terms.
    HoldoverDesign(name: "today (CLOCK_BOOTTIME, 500 ppm)") { machine in
        let boot = HoldoverBootClock(machine: machine)
        return AnchoredClock(
            monotonic: boot, wall: HoldoverWallClock(machine: machine),
            policy: NetworkClock.ClockPolicy(
                priorTolerancePPM: 500, wanderPPM: 1000, suspendTolerancePPM: 0,
                suspendResolution: .zero),
            kernel: .fixed(unsynchronizedKernel), timeBase: ExchangeClockTimeBase(boot))
    },
]

/// Runs one machine through the synced phase and the offline phase of `scenario`.
private func holdoverTrial(seed: UInt64, scenario: HoldoverScenario) -> [HoldoverTrialResult] {
    var random = SplitMix64(seed: seed)
    func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * Double(random.next() >> 11)
            / Double(1 << 53)
    }
    func logUniform(_ range: ClosedRange<Double>) -> Double {
        exp(uniform(log(range.lowerBound)...log(range.upperBound)))
    }
    let oscillator = HoldoverMachine.Oscillator(
        phase: uniform(0...(2 * .pi)), stepAt: uniform(86_400...(2 * 86_400)))
    let machine = HoldoverMachine(oscillator: oscillator)
    let clocks = designs.map { $0.make(machine) }
    var results = Array(repeating: HoldoverTrialResult(), count: designs.count)

    func sample() {
        let truth = machine.trueTime
        for (index, clock) in clocks.enumerated() {
            guard let estimate = clock.now() else { continue }
            results[index].samples += 1
            let error = abs(estimate.time - truth).secondsDouble
            if estimate.contains(truth) { results[index].inside += 1 }
            results[index].worstRatio = max(
                results[index].worstRatio, error / estimate.errorBound.secondsDouble)
        }
    }
    /// Awake for `seconds`, sampling every simulated minute.
    func awake(_ seconds: Double) {
        var left = seconds
        while left > 0 {
            let step = min(60, left)
            machine.advance(by: step)
            left -= step
            sample()
        }
    }

    // Synced for three days, ending with a sync.
    while true {
        let roundTrip = logUniform(0.002...0.1)
        let error = Duration.seconds(uniform(-roundTrip / 2...roundTrip / 2))
        let anchor = Anchor(
            trueTime: machine.trueTime + error, monotonic: machine.reading().exchange,
            errorBound: .seconds(roundTrip / 2 + 0.000_1), source: .ntp, server: "sim")
        for clock in clocks { clock.offer(anchor) }
        sample()
        if machine.trueSeconds >= 3 * 86_400 { break }
        if uniform(0...1) < 0.05 {
            let seconds = uniform(1800...36_000)
            machine.suspend(for: seconds, measured: max(0, seconds * (1 + 20e-6) + uniform(-0.9...0.9)))
            sample()
        }
        awake(logUniform(60...7200))
    }

    // Offline: each day awake for 24 h − suspended hours, then suspended; figures at the marks.
    let lastSync = machine.trueSeconds
    var marks = offlineMarks.map(\.seconds)
    func record() {
        while let mark = marks.first, machine.trueSeconds - lastSync >= mark - 1 {
            marks.removeFirst()
            for (index, clock) in clocks.enumerated() {
                guard let estimate = clock.now() else { continue }
                results[index].boundAfter.append(estimate.errorBound.secondsDouble)
                results[index].errorAfter.append(abs(estimate.time - machine.trueTime).secondsDouble)
            }
        }
    }
    let awakeHours = 24 - scenario.suspendedHoursPerDay
    for _ in 0..<7 {
        var left = awakeHours * 3600
        while left > 0 {
            let step = min(60, left)
            awake(step)
            left -= step
            record()
        }
        if scenario.suspendedHoursPerDay > 0 {
            let seconds = scenario.suspendedHoursPerDay * 3600
            machine.suspend(for: seconds, measured: max(0, seconds * (1 + 20e-6) + uniform(-0.9...0.9)))
            sample()
            record()
        }
    }
    for (index, clock) in clocks.enumerated() { results[index].resets = clock.frequency().resetCount }
    return results
}

private func formatSeconds(_ seconds: Double) -> String {
    if seconds < 1 { return String(format: "%.1f ms", seconds * 1000) }
    return String(format: "%.2f s", seconds)
}

/// Runs the trials and prints coverage and the bound after 1 hour, 1 day and 7 days offline for
/// each design, side by side.
func runHoldoverBenchmark() {
    let trials = 20
    let scenarios = [
        HoldoverScenario(name: "kiosk, awake", suspendedHoursPerDay: 0),
        HoldoverScenario(name: "drawer, asleep 16 h a day", suspendedHoursPerDay: 16),
    ]
    let started = Date()
    print(
        "holdover: \(trials) simulated machines per scenario (oscillator +80 ppm, ±2 ppm daily cycle, +6 ppm step on day 2,"
            + " suspends), synced 3 days at 1 min–2 h intervals over 2–100 ms round trips, then 7 days offline;"
            + " kernel unsynchronised")
    for scenario in scenarios {
        let perTrial = (0..<trials).map { holdoverTrial(seed: 1000 + UInt64($0), scenario: scenario) }
        var table = Table(header: [
            "design (\(scenario.name))", "truth in bound", "worst err/bound", "bound 1 h", "bound 1 day",
            "bound 7 days", "err 1 day", "resets",
        ])
        for (index, design) in designs.enumerated() {
            let results = perTrial.map { $0[index] }
            let samples = results.reduce(0) { $0 + $1.samples }
            let inside = results.reduce(0) { $0 + $1.inside }
            let coverage = 100 * Double(inside) / Double(max(1, samples))
            let worst = results.map(\.worstRatio).max() ?? 0
            var row = [
                design.name,
                String(format: inside == samples ? "%.0f%%" : "%.3f%%", coverage) + " of \(samples)",
                String(format: "%.3f", worst),
            ]
            for mark in offlineMarks.indices {
                row.append(
                    formatSeconds(
                        Stats.median(
                            results.compactMap {
                                $0.boundAfter.indices.contains(mark) ? $0.boundAfter[mark] : nil
                            })))
            }
            row.append(
                formatSeconds(
                    Stats.median(results.compactMap { $0.errorAfter.count > 1 ? $0.errorAfter[1] : nil })))
            row.append("\(results.reduce(0) { $0 + $1.resets })")
            table.add(row)
        }
        print()
        print(table.render())
    }
    print(
        "\n(medians over the machines; 'worst err/bound' is the largest |error| / bound seen, under 1 when"
            + " the truth never left the bound; total \(String(format: "%.1f", Date().timeIntervalSince(started))) s)"
    )
}
