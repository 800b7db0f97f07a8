import Foundation
import NetClockPlatform
import Synchronization
import NetClockTestSupport
import Testing
import TimeValues

@testable import ClockCore

/// Readers on the production time base (``SystemTimeBase``: the raw oscillator and the suspend
/// epoch through the vDSO) while a writer keeps offering anchors stamped on `CLOCK_BOOTTIME`.
/// `ConcurrencyStressTests` (NetworkClockTests) checks publication to the nanosecond on a time base that is the
/// boot-time clock itself; this checks the real read path against the real clocks, which run at
/// slightly different rates (the kernel's frequency), so to the bound rather than the nanosecond.
///
/// All anchors lie on one line, true time = base + `CLOCK_BOOTTIME`. Every reading, taken between
/// two boot-time readings, must overlap that line's truth in the window (its bound covers the
/// anchor's placement on the raw oscillator and its growth since), name one of the writer's
/// servers, and, per thread, never end before the previous reading began.
@Suite(.serialized)
struct ProductionTimeBaseStressTests {
    @Test func readersOnTheRawOscillatorWhileAnchorsAreOffered() throws {
        #if os(Linux)
            let base = Duration.seconds(1_790_000_000)
            let clock = AnchoredClock()
            let names = (0..<5).map { "pt\($0)" }
            let identifiers = Set(names.map { ServerNames.identifier(for: $0) })
            @Sendable func anchor(_ index: Int) -> Anchor {
                let boot = BootTimeClock().now()
                return Anchor(
                    trueTime: UnixTime(sinceEpoch: base + boot.sinceOrigin),
                    monotonic: boot, errorBound: .microseconds(Int64(200 + (index % 3) * 300)), source: .ntp,
                    server: names[index % names.count])
            }
            #expect(clock.offer(anchor(0)).replacedAnchor)
            let stop = Atomic<Bool>(false)
            let failures = Mutex<[String]>([])
            let reads = Atomic<Int>(0)
            let writer: @Sendable () -> Void = {
                var index = 1
                while !stop.load(ordering: .acquiring) {
                    clock.offer(anchor(index))
                    index += 1
                    if index % 64 == 0 { Thread.sleep(forTimeInterval: 0.000_2) }
                }
            }
            let reader: @Sendable () -> Void = {
                var previous: (earliest: UnixTime, latest: UnixTime)?
                var count = 0
                let deadline = BootTimeClock().now() + .milliseconds(700)
                while BootTimeClock().now() < deadline {
                    let before = BootTimeClock().now()
                    guard let estimate = clock.now() else {
                        failures.withLock { $0.append("now() returned nil") }
                        return
                    }
                    let after = BootTimeClock().now()
                    count += 1
                    // A microsecond beyond the window for the pairing of the placement readings.
                    let slack = Duration.microseconds(1)
                    let windowStart = UnixTime(sinceEpoch: base + before.sinceOrigin) - slack
                    let windowEnd = UnixTime(sinceEpoch: base + after.sinceOrigin) + slack
                    if estimate.latest < windowStart || estimate.earliest > windowEnd {
                        failures.withLock { $0.append("\(estimate) misses \(windowStart)…\(windowEnd)") }
                    }
                    if !identifiers.contains(estimate.serverIdentifier) {
                        failures.withLock { $0.append("unknown server in \(estimate)") }
                    }
                    if let previous, estimate.latest < previous.earliest {
                        failures.withLock { $0.append("went back: \(estimate) after \(previous)") }
                    }
                    previous = (estimate.earliest, estimate.latest)
                }
                reads.add(count, ordering: .relaxed)
            }
            let group = DispatchGroup()
            let writerThread = Thread {
                writer()
                group.leave()
            }
            group.enter()
            writerThread.start()
            runOnThreads([reader, reader, reader, reader])
            stop.store(true, ordering: .releasing)
            group.wait()
            let found = failures.withLock { $0 }
            #expect(found.isEmpty, "\(found.count) failures: \(found.prefix(5))")
            #expect(reads.load(ordering: .relaxed) > 10_000)
        #endif
    }
}
