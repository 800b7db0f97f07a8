import Foundation
import LoopbackServers
import SNTP
import Synchronization
import NetClockTestSupport
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

@Suite("AnchorStore")
struct AnchorStoreTests {
    private static func store(
        at path: String, timeline: SimulatedTimeline, bootID: String? = "boot-A"
    ) -> AnchorStore {
        AnchorStore(
            path: path, bootID: { bootID }, monotonic: timeline.monotonicClock, wall: timeline.wallClock)
    }

    @Test(
        "save then load round-trips the anchor exactly, as restored, with its time base and frequency history"
    )
    func roundTrip() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline(monotonicDriftPPM: 20)
            let path = directory + "/nested/netclock/anchor.json"
            let store = Self.store(at: path, timeline: timeline)
            let clock = AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
            for _ in 0..<4 {
                clock.offer(timeline.anchor(bound: .microseconds(1_500), server: "ntp.example.net:123"))
                timeline.advance(by: .seconds(400))
            }
            try clock.save(to: store)
            var expected = try #require(clock.anchor)
            expected.source = .restored
            #expect(clock.frequency().isMeasured)

            let restored = try store.load().get()
            #expect(restored.anchor == expected)
            #expect(restored.originalSource == .ntp)
            #expect(restored.bootID == "boot-A")
            #expect(restored.frequencyHistory == clock.frequencyTracker.points)
            #expect(restored.timeBase == clock.anchorTimeBase)
            #expect(restored.writtenAt == timeline.wallReading)
            #expect(restored.writtenAtMonotonic == timeline.monotonicReading)
            #expect(try permissions(of: path) == 0o600)
            #expect(try permissions(of: directory + "/nested/netclock") == 0o700)
            #expect(try permissions(of: directory + "/nested") == 0o700)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/nested/netclock")
            // No temporary files left behind; the lock file stays (it is never removed).
            #expect(files.sorted() == ["anchor.json", "anchor.json.lock"])

            // A new process (a new clock in the same boot) restores the time and the frequency.
            let next = AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
            _ = try next.restore(from: store).get()
            let estimate = try #require(next.now())
            let original = try #require(clock.now())
            #expect(estimate.source == .restored)
            #expect(estimate.server == "ntp.example.net:123")
            #expect(estimate.isDriftCorrected)
            #expect(next.frequency() == clock.frequency())
            #expect(estimate.time == original.time)
            #expect(estimate.errorBound == original.errorBound)
        }
    }

    // Saving truncates to whole nanoseconds; the bound grows by a nanosecond per truncated part so
    // that the restored interval still contains everything the original did.
    @Test("sub-nanosecond parts are truncated and paid for in the bound")
    func subNanosecond() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            let anchor = Anchor(
                trueTime: UnixTime(seconds: 1_780_000_000) + .nanoseconds(1) / 4,
                monotonic: MonotonicInstant(sinceOrigin: .seconds(100) + .nanoseconds(1) / 3),
                errorBound: .milliseconds(1),
                source: .http, server: nil)
            try store.save(anchor)
            let restored = try store.load().get()
            #expect(restored.anchor.trueTime == UnixTime(seconds: 1_780_000_000))
            #expect(restored.anchor.monotonic == MonotonicInstant(sinceOrigin: .seconds(100)))
            #expect(restored.anchor.errorBound == .milliseconds(1) + .nanoseconds(2))
            #expect(restored.originalSource == .http && restored.anchor.server == nil)
        }
    }

    @Test(
        "default location follows an absolute XDG_CACHE_HOME, then HOME",
        arguments: [
            (["XDG_CACHE_HOME": "/c", "HOME": "/h"], "/c/netclock/anchor.json"),
            (["XDG_CACHE_HOME": "/c/", "HOME": "/h"], "/c/netclock/anchor.json"),
            (["XDG_CACHE_HOME": "rel", "HOME": "/h"], "/h/.cache/netclock/anchor.json"),
            (["HOME": "/h"], "/h/.cache/netclock/anchor.json"),
            ([:], nil),
        ])
    func defaultPath(environment: [String: String], expected: String?) throws {
        #expect(AnchorStore.defaultPath(environment: environment) == expected)
        let store = try? AnchorStore(environment: environment)
        #expect(store?.path == expected)
    }

    @Test("the system boot identity is read from /proc")
    func systemBootID() throws {
        let id = try #require(AnchorStore.systemBootID())
        #expect(id.count == 36 && AnchorStore.systemBootID() == id)
    }

    /// A valid file's text, saved by the store at `path`.
    private static func validText(_ store: AnchorStore, _ timeline: SimulatedTimeline) throws -> String {
        try store.save(timeline.anchor(bound: .milliseconds(3)))
        return try String(contentsOfFile: store.path, encoding: .utf8)
    }

    @Test(
        "bad files are refused with a typed reason",
        arguments: [
            ("", AnchorStoreError.Code.empty),
            ("  \n\t", .empty),
            ("not json at all", .corrupt),
            ("{\"version\": 1, \"boot_id\": \"boot-A\", \"anchor\": {\"true_time\": {\"sec", .truncated),
            ("[1, 2", .truncated),
            ("{\"version\": 1}", .corrupt),
            ("{\"boot_id\": \"boot-A\"}", .corrupt),
            ("{\"version\": \"one\"}", .corrupt),
            ("{\"version\": 2, \"anything\": true}", .unsupportedVersion),
            ("{\"version\": 1e300}", .corrupt),
            ("\u{0}\u{1}\u{FF}garbage}", .corrupt),
        ])
    func badContent(text: String, code: AnchorStoreError.Code) throws {
        try inTemporaryDirectory { directory in
            let store = Self.store(at: directory + "/anchor.json", timeline: SimulatedTimeline())
            try writeFile(text, to: store.path)
            #expect(throws: AnchorStoreError.self) { try store.load().get() }
            guard case .failure(let error) = store.load() else { return }
            #expect(error.code == code, "\(error)")
            #expect(error.path == store.path)
        }
    }

    @Test(
        "out-of-range or inconsistent values in valid JSON are refused",
        arguments: [
            ("\"nanoseconds\" : 250000000", "\"nanoseconds\" : 2500000000", AnchorStoreError.Code.corrupt),
            ("\"nanoseconds\" : 250000000", "\"nanoseconds\" : -1", .corrupt),
            ("\"error_bound_ns\" : 3000000", "\"error_bound_ns\" : -5", .corrupt),
            ("\"error_bound_ns\" : 3000000", "\"error_bound_ns\" : 99999999999999999", .corrupt),
            ("\"source\" : \"ntp\"", "\"source\" : \"sundial\"", .corrupt),
            ("\"boot_id\" : \"boot-A\"", "\"boot_id\" : \"\"", .corrupt),
            ("\"boot_id\" : \"boot-A\"", "\"boot_id\" : \"boot-B\"", .differentBoot),
            ("\"version\" : 1", "\"version\" : 7", .unsupportedVersion),
        ])
    func badValues(original: String, replacement: String, code: AnchorStoreError.Code) throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            let text = try Self.validText(store, timeline)
            #expect(text.contains(original), "fixture drifted from the file format")
            try writeFile(text.replacingOccurrences(of: original, with: replacement), to: store.path)
            guard case .failure(let error) = store.load() else {
                Issue.record("loaded a file with \(replacement)")
                return
            }
            #expect(error.code == code, "\(error)")
        }
    }

    @Test("missing, unreadable, oversized, and boot-id problems")
    func environmentProblems() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            #expect(
                Self.store(at: directory + "/none.json", timeline: timeline).load().failureCode == .missing)
            // A directory where the file should be is refused for what it is.
            #expect(Self.store(at: directory, timeline: timeline).load().failureCode == .notRegularFile)
            let big = Self.store(at: directory + "/big.json", timeline: timeline)
            try writeFile(String(repeating: " ", count: AnchorStore.maximumFileSize + 1), to: big.path)
            #expect(big.load().failureCode == .corrupt)

            let path = directory + "/anchor.json"
            _ = try Self.validText(Self.store(at: path, timeline: timeline), timeline)
            let otherBoot = Self.store(at: path, timeline: timeline, bootID: "boot-B")
            #expect(otherBoot.load().failureCode == .differentBoot)
            let noBootID = Self.store(at: path, timeline: timeline, bootID: nil)
            #expect(noBootID.load().failureCode == .bootIDUnavailable)
            #expect(throws: AnchorStoreError.self) { try noBootID.save(timeline.anchor(bound: .zero)) }
            #expect(Self.store(at: path, timeline: timeline).load().failureCode == nil)
        }
    }

    @Test("a file dated after the current monotonic instant is refused")
    func futureDated() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            // An anchor stamped an hour into the monotonic future.
            var anchor = timeline.anchor(bound: .milliseconds(1))
            anchor.monotonic = anchor.monotonic + .seconds(3600)
            try store.save(anchor)
            #expect(store.load().failureCode == .futureDated)

            // A file written "later" than now by a monotonic clock that has since gone backwards
            // (another boot that reused the identity, or a tampered file).
            let later = SimulatedTimeline(monotonicOrigin: .seconds(9_000))
            try Self.store(at: store.path, timeline: later).save(timeline.anchor(bound: .milliseconds(1)))
            #expect(store.load().failureCode == .futureDated)

            // An anchor dated after the file was written, even if both are in the past by now.
            var early = timeline.anchor(bound: .milliseconds(1))
            early.monotonic = early.monotonic + .seconds(100)
            try store.save(early)
            timeline.advance(by: .seconds(200))
            #expect(store.load().failureCode == .futureDated)
            try store.save(timeline.anchor(bound: .milliseconds(1)))
            #expect(store.load().failureCode == nil)
        }
    }

    @Test("an unwritable location is an error the caller sees; the clock keeps working")
    func unwritable() throws {
        try inTemporaryDirectory { directory in
            // A regular file where a directory should be: fails even for root, unlike permission bits.
            try writeFile("x", to: directory + "/blocker")
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/blocker/netclock/anchor.json", timeline: timeline)
            let clock = AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
            let error = #expect(throws: AnchorStoreError.self) {
                try clock.offer(timeline.anchor(bound: .milliseconds(2)), persistingTo: store)
            }
            #expect(error?.code == .writeFailed)
            #expect(error?.reason.contains("blocker") == true)
            timeline.advance(by: .seconds(1))
            let estimate = try #require(clock.now())
            #expect(estimate.time == timeline.trueTime)

            let empty = AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
            #expect(throws: AnchorStoreError.self) { try empty.save(to: store) }
        }
    }

    @Test("random corruption of a valid file never traps and never loads altered values unnoticed")
    func fuzz() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            let original = Array(try Self.validText(store, timeline).utf8)
            var generator = SplitMix64(seed: 42)
            for _ in 0..<400 {
                var bytes = original
                let edits = 1 + Int(generator.next() % 4)
                for _ in 0..<edits {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes.removeSubrange(index...)
                    default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
                    }
                    if bytes.isEmpty { break }
                }
                try writeFile(bytes, to: store.path)
                if case .success(let restored) = store.load() {
                    // Edits that keep the file valid (e.g. whitespace) must still give a sane anchor.
                    let anchor = restored.anchor
                    #expect(anchor.errorBound >= .zero && anchor.monotonic <= timeline.monotonicReading)
                }
            }
        }
    }

    @Test("concurrent writers never leave a torn file")
    func concurrentWriters() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            // Files of different lengths, so that a torn file could not parse as either.
            let first = timeline.anchor(bound: .milliseconds(1), server: "one.example.org")
            let second = timeline.anchor(
                bound: .milliseconds(9), server: "https://two.example.org/a/longer/path")
            try store.save(first)
            let problems = Mutex([String]())
            let writer: @Sendable (Anchor) -> Void = { anchor in
                for _ in 0..<150 {
                    do { try store.save(anchor) } catch { problems.withLock { $0.append("\(error)") } }
                }
            }
            runOnThreads([
                { writer(first) },
                { writer(second) },
                {
                    for _ in 0..<600 {
                        switch store.load() {
                        case .success(let restored):
                            let expected = restored.anchor.server == first.server ? first : second
                            var anchor = restored.anchor
                            anchor.source = .ntp
                            if anchor != expected { problems.withLock { $0.append("mixed fields") } }
                        case .failure(let error):
                            problems.withLock { $0.append("\(error.code): \(error.reason)") }
                        }
                    }
                },
            ])
            let found = problems.withLock { $0 }
            #expect(found.isEmpty, "\(found.prefix(3))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["anchor.json"])
        }
    }
}
