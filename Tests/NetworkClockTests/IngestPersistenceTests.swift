import Foundation
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import ClockCore
@testable import NetworkClock

/// `ingest` persists accepted anchors off the caller's thread, one write at a time, and the file
/// ends with the newest anchor.
@Suite struct IngestPersistenceTests {
    private static func temporaryPath() -> String {
        NSTemporaryDirectory() + "netclock-ingest-\(UInt64.random(in: 0...UInt64.max))/anchor.json"
    }

    /// Reads the store from a synchronous context (`load()` blocks on file I/O).
    private static func load(_ store: AnchorStore) -> Result<RestoredAnchor, AnchorStoreError> {
        store.load()
    }

    @Test func anIngestedAnchorIsWrittenToTheStore() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let store = AnchorStore(path: path)
        let clock = NetworkClock(configuration: .init(servers: [], store: store))
        // A 20 ms round trip that has just ended (a stored anchor may not lie in the future).
        let received = clock.monotonicNow()
        let serverTime = UnixTime(seconds: 1_796_040_000, nanoseconds: 250_000_000)
        let replaced = try clock.ingest(
            serverTime: serverTime, requestSent: received - .milliseconds(20), responseReceived: received,
            resolution: .milliseconds(1), server: "api.example.com")
        #expect(replaced)
        await clock.persister?.waitUntilIdle()
        let restored = try Self.load(store).get()
        // The anchor is at the response: server time + (RTT + drift(RTT)) / 2 ± (res + the same),
        // placed on the raw time base from a reading taken just after its boot-time instant.
        let tolerance = clock.configuration.clock.frequencyTolerancePPM
        let centre = (.milliseconds(20) + Duration.milliseconds(20).drift(atPPM: tolerance)) / 2
        let bound = .milliseconds(1) + centre
        // (The file keeps whole nanoseconds; the half nanosecond of the midpoint is truncated.)
        #expect(abs(restored.trueTime - (serverTime + centre)) < .nanoseconds(1))
        #expect(restored.errorBound >= bound)
        #expect(restored.errorBound <= bound + Self.mapping(.milliseconds(10)))
        #expect(restored.server == "api.example.com")
        #expect(restored.originalSource == .http)
    }

    @Test func manyQuickIngestsLeaveTheTightestAnchorInTheFile() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let store = AnchorStore(path: path)
        let clock = NetworkClock(configuration: .init(servers: [], store: store))
        let base = UnixTime(seconds: 1_796_040_000)
        // Round trips shrinking from 50 ms to 1 ms: each one tightens the bound and replaces the
        // anchor, faster than the file can be written and fsynced.
        for step in 0..<50 {
            let received = clock.monotonicNow()
            let sent = received - .milliseconds(50 - step)
            _ = try clock.ingest(
                serverTime: base + (sent - MonotonicInstant(sinceOrigin: .zero)), requestSent: sent,
                responseReceived: received, resolution: .zero)
        }
        await clock.persister?.waitUntilIdle()
        let restored = try Self.load(store).get()
        #expect(restored.errorBound >= .microseconds(500))
        #expect(
            restored.errorBound <= .microseconds(500) + Self.mapping(.microseconds(500)),
            "the last (1 ms round trip) anchor is the one stored")
    }

    /// The most placing an anchor `distance` before the paired reading can add: the kernel's
    /// possible slew over the distance plus time spent getting there and the pairing (20 µs).
    private static func mapping(_ distance: Duration) -> Duration {
        let rate = KernelDiscipline(Syscalls.kernelClockState()).mappingRate
        return (distance + .milliseconds(5)) * rate + .microseconds(20)
    }
}
