import ClockCore
import NetClockPlatform
import Foundation
import NetworkClock
import SNTP
import Synchronization
import TimeValues

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// `netclock-bench now`: the cost of reading the trusted clock, against `Date()` and a raw
// `clock_gettime(CLOCK_REALTIME)` measured in the same run, single-threaded and with four reader
// threads while a fifth thread keeps replacing the anchor. A reading is one raw-oscillator read,
// the suspend epoch (two coarse clock reads) and the published anchor; "frequency measured" is
// the same read on a clock whose frequency two syncs measured (the wander model's quadratic
// branch, where one sync leaves the prior's linear one).

/// Consumes a value so the optimiser cannot delete the work that produced it.
@inline(never)
private func blackhole(_ value: TimeEstimate?) {
    if let value, value.errorBound.attoseconds < 0 { print(value) }
}

@inline(never)
private func blackhole(_ value: Date) {
    if value.timeIntervalSince1970.isNaN { print(value) }
}

@inline(never)
private func blackhole(_ value: timespec) {
    if value.tv_nsec < 0 { print(value) }
}

/// The operations compared.
private enum ReadOperation: CaseIterable {
    case anchoredNow, measuredNow, foundationDate, clockGetTime

    var label: String {
        switch self {
        case .anchoredNow: return "AnchoredClock.now()"
        case .measuredNow: return "  frequency measured"
        case .foundationDate: return "Date()"
        case .clockGetTime: return "clock_gettime(REALTIME)"
        }
    }

    /// Runs the operation `iterations` times.
    func run(_ iterations: Int, clock: AnchoredClock) {
        switch self {
        case .anchoredNow:
            for _ in 0..<iterations { blackhole(clock.now()) }
        case .measuredNow:
            let measured = measuredClock
            for _ in 0..<iterations { blackhole(measured.now()) }
        case .foundationDate:
            for _ in 0..<iterations { blackhole(Date()) }
        case .clockGetTime:
            for _ in 0..<iterations {
                var time = timespec()
                _ = clock_gettime(CLOCK_REALTIME, &time)
                blackhole(time)
            }
        }
    }
}

/// Nanoseconds of CPU time used by the calling thread.
private func threadCPUNanoseconds() -> Double {
    var time = timespec()
    _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

/// A synchronized clock whose anchor a sync thread can keep replacing.
private func makeSynchronizedClock() -> AnchoredClock {
    let clock = AnchoredClock()
    clock.offer(freshAnchor(bound: .milliseconds(5), server: "bench.example.org:123"))
    return clock
}

/// A clock whose oscillator frequency two syncs ten minutes apart have measured (±1 ms each, so
/// about ±6 ppm): its `now()` takes the wander model's quadratic branch, not the prior's linear one.
private let measuredClock: AnchoredClock = {
    let clock = AnchoredClock()
    let now = SystemTimeBase().read()
    let truth = SystemWallClock().now()
    let earlier = TimeBaseInstant(awake: now.base.awake - .seconds(600), suspended: now.base.suspended)
    for (base, trueTime) in [(earlier, truth - .seconds(600)), (now.base, truth)] {
        _ = clock.offer(
            Anchor(
                trueTime: trueTime, monotonic: now.exchange - (now.base.awake - base.awake),
                errorBound: .milliseconds(1), source: .ntp, server: "measured.example.org"),
            base: base)
    }
    return clock
}()

private func freshAnchor(bound: Duration, server: String) -> Anchor {
    Anchor(
        trueTime: SystemWallClock().now(), monotonic: BootTimeClock().now(), errorBound: bound, source: .ntp,
        server: server)
}

/// Single-threaded ns per call: the median over rounds that interleave the operations, so that
/// frequency scaling and noisy neighbours hit all of them alike.
private func singleThreaded(clock: AnchoredClock, rounds: Int, iterations: Int) -> [ReadOperation: Double] {
    var samples = [ReadOperation: [Double]]()
    for operation in ReadOperation.allCases { operation.run(iterations / 10, clock: clock) }  // warm up
    for _ in 0..<rounds {
        for operation in ReadOperation.allCases {
            let start = threadCPUNanoseconds()
            operation.run(iterations, clock: clock)
            samples[operation, default: []].append((threadCPUNanoseconds() - start) / Double(iterations))
        }
    }
    return samples.mapValues(median)
}

/// With `readers` threads running `operation` while one more thread replaces the anchor as fast as
/// it can: the mean CPU ns per call across readers, and the number of anchor updates made.
private func contended(
    _ operation: ReadOperation, clock: AnchoredClock, readers: Int, iterations: Int
) -> (nanoseconds: Double, updates: Int) {
    let done = Atomic<Int>(0)
    let perCall = Mutex([Double]())
    let updates = Atomic<Int>(0)
    let group = DispatchGroup()
    group.enter()
    Thread.detachNewThread {
        var count = 0
        while done.load(ordering: .acquiring) < readers {
            // Alternate tight and loose bounds so that about half the updates are accepted and
            // published, and every one takes the writer's lock.
            let bound = Duration.microseconds(count % 2 == 0 ? 500 : 50_000)
            clock.offer(
                freshAnchor(bound: bound, server: count % 2 == 0 ? "a.example.org" : "b.example.org"))
            count += 1
        }
        updates.store(count, ordering: .relaxed)
        group.leave()
    }
    for _ in 0..<readers {
        group.enter()
        Thread.detachNewThread {
            let start = threadCPUNanoseconds()
            operation.run(iterations, clock: clock)
            let elapsed = (threadCPUNanoseconds() - start) / Double(iterations)
            perCall.withLock { $0.append(elapsed) }
            done.add(1, ordering: .releasing)
            group.leave()
        }
    }
    group.wait()
    let values = perCall.withLock { $0 }
    return (values.reduce(0, +) / Double(max(1, values.count)), updates.load(ordering: .relaxed))
}

private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

private func format(_ value: Double) -> String { String(format: "%.1f", value) }

/// Measures `AnchoredClock.now()` against `Date()` and `clock_gettime(CLOCK_REALTIME)` and prints
/// ns per call and the ratio `now()/Date()`, whose target is at most 1.2 (issue 45).
func runNowBenchmark() {
    let clock = makeSynchronizedClock()
    let iterations = 2_000_000
    print("now(): CPU ns per call (median of 9 interleaved rounds of \(iterations) calls)")
    let single = singleThreaded(clock: clock, rounds: 9, iterations: iterations)
    let dateCost = single[.foundationDate] ?? .nan
    for operation in ReadOperation.allCases {
        let cost = single[operation] ?? .nan
        print(
            "  1 thread   \(operation.label.padding(toLength: 24, withPad: " ", startingAt: 0))"
                + " \(format(cost).leftPadded(7)) ns   ×\(String(format: "%.2f", cost / dateCost)) of Date()")
    }
    let readers = 4
    let contendedRounds = 5
    var contendedCosts = [ReadOperation: Double]()
    var updateCount = 0
    // The writer replaces `clock`'s anchor: the measured clock is left out here.
    let contendedOperations = ReadOperation.allCases.filter { $0 != .measuredNow }
    // Interleaved rounds and their medians, as for one thread: a single contended run of each
    // operation, minutes apart on a shared machine, differed by more than the gap measured.
    var contendedSamples = [ReadOperation: [Double]]()
    for _ in 0..<contendedRounds {
        for operation in contendedOperations {
            let result = contended(operation, clock: clock, readers: readers, iterations: iterations / 4)
            contendedSamples[operation, default: []].append(result.nanoseconds)
            if operation == .anchoredNow { updateCount += result.updates }
        }
    }
    contendedCosts = contendedSamples.mapValues(median)
    let contendedDate = contendedCosts[.foundationDate] ?? .nan
    for operation in contendedOperations {
        let cost = contendedCosts[operation] ?? .nan
        print(
            "  \(readers) threads  \(operation.label.padding(toLength: 24, withPad: " ", startingAt: 0))"
                + " \(format(cost).leftPadded(7)) ns   ×\(String(format: "%.2f", cost / contendedDate)) of Date()"
        )
    }
    print(
        "  (\(readers) readers ran beside a thread that updated the anchor \(updateCount) times;"
            + " median of \(contendedRounds) interleaved rounds)")
    let measured = measuredClock.frequency()
    print(
        "  (the measured clock: \(measured.syncCount) syncs, ±\(String(format: "%.1f", measured.growthRatePPM)) ppm,"
            + " drift corrected: \(measuredClock.now()?.isDriftCorrected ?? false))")
    let worst = max(
        (single[.anchoredNow] ?? .nan) / dateCost, (single[.measuredNow] ?? .nan) / dateCost,
        (contendedCosts[.anchoredNow] ?? .nan) / contendedDate)
    print("  ratio now()/Date(): \(String(format: "%.2f", worst)) worst case; target ≤ 1.20")
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
