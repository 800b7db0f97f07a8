import Foundation
import NetClockPlatform
import NetClockTestSupport
import SNTP
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// One anchor file shared by several clocks (processes): every save reads the file, merges it and
/// writes the result under the lock beside it, so no clock's sync point is lost to another's
/// write, an older file never undoes a fresher anchor, the floor only rises, and the lock file is
/// checked like every state file.
@Suite("AnchorStore shared by many writers")
struct AnchorStoreSharingTests {
    static func store(at path: String, timeline: SimulatedTimeline) -> AnchorStore {
        AnchorStore(
            path: path, bootID: { "boot-A" }, monotonic: timeline.monotonicClock, wall: timeline.wallClock)
    }

    static func clock(_ timeline: SimulatedTimeline) -> AnchoredClock {
        AnchoredClock(monotonic: timeline.monotonicClock, wall: timeline.wallClock)
    }

    /// Three clocks restore the same (empty) file, sync at different times and save in turn: the file
    /// ends with all three sync points, and the last writer's clock learnt the others' too. Before
    /// the merge, each save replaced the file with its own single point.
    @Test func everyWritersSyncPointIsKept() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline(monotonicDriftPPM: 20)
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            let clocks = (0..<3).map { _ in Self.clock(timeline) }
            for clock in clocks { #expect(clock.restore(from: store).failureCode == .missing) }
            for clock in clocks {
                clock.offer(timeline.anchor(bound: .microseconds(500)))
                timeline.advance(by: .seconds(300))
            }
            for clock in clocks { try clock.save(to: store) }
            let saved = try store.load().get()
            #expect(saved.frequencyHistory.count == 3, "\(saved.frequencyHistory)")
            let last = try #require(clocks.last)
            #expect(last.frequencyTracker.points.count == 3)
            #expect(last.frequency().isMeasured, "three points 600 s apart measure the oscillator")
            // The newest anchor is the file's: the first clock's, older, was aged and intersected.
            #expect(saved.timeBase == clocks[2].anchorTimeBase)
            // Saving again adds nothing twice.
            try clocks[0].save(to: store)
            #expect(try store.load().get().frequencyHistory.count == 3)
            // The lock file stays, empty and private.
            #expect(try permissions(of: store.lockPath) == 0o600)
            #expect(try FileManager.default.attributesOfItem(atPath: store.lockPath)[.size] as? Int == 0)
        }
    }

    /// When the file's anchor and the clock's contradict each other, the one later on the time base
    /// wins: a file read back never undoes a fresher sync, and a fresher file replaces an older
    /// anchor.
    @Test func theLaterOfTwoContradictingAnchorsWins() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            let early = Self.clock(timeline)
            var wrong = timeline.anchor(bound: .milliseconds(1))
            wrong.trueTime = wrong.trueTime + .seconds(2)
            early.offer(wrong)
            timeline.advance(by: .seconds(10))
            let late = Self.clock(timeline)
            late.offer(timeline.anchor(bound: .milliseconds(1)))
            // The early clock writes first; the late one merges the older, contradicting anchor and
            // keeps its own.
            try early.save(to: store)
            try late.save(to: store)
            let kept = try #require(late.now())
            #expect(abs(kept.time - timeline.trueTime) <= kept.errorBound, "\(kept)")
            #expect(try store.load().get().anchor.trueTime == late.anchor?.trueTime)
            // The early clock, saving again, takes the later anchor from the file.
            try early.save(to: store)
            let corrected = try #require(early.now())
            #expect(abs(corrected.time - timeline.trueTime) <= corrected.errorBound, "\(corrected)")
        }
    }

    /// A save waits for the lock another process holds, and gives up with `lock_timeout` after the
    /// store's timeout, writing nothing; once the lock is free it saves.
    @Test func aHeldLockTimesOutWithAClearError() throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            var store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            store.lockTimeout = .milliseconds(100)
            let clock = Self.clock(timeline)
            clock.offer(timeline.anchor(bound: .milliseconds(1)))
            let held = try FileSystem.lockPrivateFile(atPath: store.lockPath, timeout: .zero).get()
            do throws(AnchorStoreError) {
                try clock.save(to: store)
                Issue.record("saved while another holder kept the lock")
            } catch {
                #expect(error.code == .lockTimeout, "\(error)")
                #expect(error.path == store.lockPath)
                #expect(error.reason.contains("another process held the lock"), "\(error.reason)")
            }
            #expect(!FileManager.default.fileExists(atPath: store.path))
            held.release()
            try clock.save(to: store)
            #expect(try store.load().get().anchor.trueTime == clock.anchor?.trueTime)
        }
    }

    /// A lock file that is a symbolic link, another kind of file, or readable by others is refused
    /// as the state files are, and nothing is written.
    @Test(arguments: ["symbolic link", "directory", "mode 0644"])
    func anUnsafeLockFileIsRefused(kind: String) throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
            let expected: AnchorStoreError.Code
            switch kind {
            case "symbolic link":
                try writeFile("", to: directory + "/elsewhere")
                try FileManager.default.createSymbolicLink(
                    atPath: store.lockPath, withDestinationPath: directory + "/elsewhere")
                expected = .symbolicLink
            case "directory":
                try FileManager.default.createDirectory(
                    atPath: store.lockPath, withIntermediateDirectories: false)
                expected = .notRegularFile
            default:
                try writeFile("", to: store.lockPath)
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o644], ofItemAtPath: store.lockPath)
                expected = .unsafePermissions
            }
            let clock = Self.clock(timeline)
            clock.offer(timeline.anchor(bound: .milliseconds(1)))
            do throws(AnchorStoreError) {
                try clock.save(to: store)
                Issue.record("\(kind): saved through an unsafe lock file")
            } catch {
                #expect(error.code == expected, "\(kind): \(error)")
                #expect(error.isUnsafeFile)
            }
            #expect(!FileManager.default.fileExists(atPath: store.path), "\(kind)")
            #expect(AnchorStore.unsafeFileError(at: store.lockPath)?.code == expected, "\(kind)")
        }
    }

    /// The floor is merged under the lock: a process that read a lower floor at its start never
    /// lowers what another process raised it to since, and learns the higher floor.
    @Test func theFloorOnlyRisesWhateverTheOrderOfWriters() async throws {
        let directory = NSTemporaryDirectory() + "netclock-floor-\(UInt64.random(in: .min ... .max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let timeline = SimulatedTimeline()
        let store = Self.store(at: directory + "/anchor.json", timeline: timeline)
        let base = UnixTime(seconds: 1_796_000_000)
        let files = ClockStateFiles(
            store: store, clock: Self.clock(timeline), usesNTS: false, trustRoots: .system, failed: { _ in })
        #expect(files.floorValue == nil)
        // Another process raises the floor to base + 100 s after this one started.
        try Self.write(TimeFloor(authenticated: base + .seconds(100)), to: store.floorPath)
        let failure = await files.raiseFloor(byAuthenticated: base + .seconds(50), certificateNotBefore: nil)
        #expect(failure == nil)
        #expect(try Self.floor(at: store.floorPath).authenticated == base + .seconds(100))
        #expect(files.floorValue == base + .seconds(100))
        let raised = await files.raiseFloor(
            byAuthenticated: base + .seconds(150), certificateNotBefore: 1_795_000_000)
        #expect(raised == nil)
        let floor = try Self.floor(at: store.floorPath)
        #expect(floor.authenticated == base + .seconds(150))
        #expect(floor.certificateNotBefore == UnixTime(seconds: 1_795_000_000))
    }

    /// Writes `floor` at `path`, as another process would.
    static func write(_ floor: TimeFloor, to path: String) throws {
        try floor.save(to: path)
    }

    /// The floor kept at `path`.
    static func floor(at path: String) throws -> TimeFloor {
        try TimeFloor.load(from: path)
    }
}
