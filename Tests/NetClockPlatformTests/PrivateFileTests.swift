import Foundation
import LoopbackServers
import NetClockPlatform
import Synchronization
import NetClockTestSupport
import Testing

/// The checks every state file goes through (`FileSystem.readPrivateFile`, `takePrivateFile`,
/// `inspectPrivateFile`, `writePrivateFile`): each hostile kind of file is refused at once with its
/// reason, and is neither followed, read, moved nor replaced.
@Suite("Private state files")
struct PrivateFileTests {
    static let contents = "{\"version\": 1}\n"

    /// Runs `body` on a thread of its own and waits at most `limit` for it, so a call that blocks
    /// (a FIFO opened without `O_NONBLOCK` blocks until a writer comes, i.e. for ever) fails the
    /// test instead of hanging the suite. Returns nil on a timeout.
    static func withinDeadline<T: Sendable>(
        limit: Duration = .seconds(2), _ body: @escaping @Sendable () -> T
    )
        -> (value: T, elapsed: Duration)?
    {
        let outcome = DeadlineOutcome<T>()
        let thread = Thread {
            let clock = ContinuousClock()
            let start = clock.now
            let value = body()
            outcome.value.withLock { $0 = (value, clock.now - start) }
            outcome.done.signal()
        }
        thread.start()
        guard outcome.done.wait(timeout: .now() + Double(limit.components.seconds)) == .success else {
            return nil
        }
        return outcome.value.withLock { $0 }.map { (value: $0.0, elapsed: $0.1) }
    }

    static func refusal(_ error: FileSystem.PrivateFileError?) -> FileSystem.Refusal? {
        if case .refused(let refusal)? = error { return refusal }
        return nil
    }

    @Test(
        "each hostile kind is refused by every entry point, in well under a second, and left intact",
        arguments: HostileStateFile.withoutRoot)
    func hostileKindsAreRefused(kind: HostileStateFile) throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/state.json"
            try kind.make(at: path, contents: Self.contents)
            let calls: [(String, @Sendable () -> FileSystem.PrivateFileError?)] = [
                (
                    "read",
                    {
                        if case .failure(let e) = FileSystem.readPrivateFile(atPath: path, limit: 1024) {
                            return e
                        }; return nil
                    }
                ),
                (
                    "take",
                    {
                        if case .failure(let e) = FileSystem.takePrivateFile(atPath: path, limit: 1024) {
                            return e
                        }; return nil
                    }
                ),
                ("inspect", { FileSystem.inspectPrivateFile(atPath: path) }),
            ]
            for (name, call) in calls {
                // Wall time, because blocking is the failure: 1 s is far above the microseconds of
                // an lstat and far below "for ever".
                let outcome = try #require(Self.withinDeadline(call), "\(name) blocked on \(kind)")
                let refusal = try #require(
                    Self.refusal(outcome.value), "\(name): \(String(describing: outcome.value))")
                #expect(refusal.path == path)
                #expect(refusal.reason.hasPrefix(path + " " + kind.reasonWords), "\(name): \(refusal.reason)")
                #expect(outcome.elapsed < .seconds(1))
                #expect(kind.isIntact(at: path, contents: Self.contents), "\(name) changed the \(kind)")
            }
            // The writer replaces a file whose only fault is its mode (the new one is 0600), and
            // refuses everything else, leaving it as it was (a link's target included).
            let written = try #require(
                Self.withinDeadline { FileSystem.writePrivateFile(Array("new".utf8), toPath: path) })
            if kind.isReplaceable {
                #expect(written.value == nil)
                #expect(try permissions(of: path) == 0o600)
                #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
            } else {
                #expect(Self.refusal(written.value)?.reason.hasPrefix(path + " " + kind.reasonWords) == true)
                #expect(kind.isIntact(at: path, contents: Self.contents))
            }
            // No temporary file or taken file is left behind.
            let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.hasPrefix(".")
            }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test(
        "another user's file is refused (needs root to chown to nobody)",
        .enabled(if: HostileStateFile.canMakeOtherOwner, "not root: cannot chown a file to uid 65534"))
    func anotherUsersFile() throws {
        try hostileKindsAreRefused(kind: .otherOwner)
    }

    @Test(
        "owner-only modes are accepted: 0600 as written, 0400 as a stricter choice",
        arguments: [0o600, 0o400])
    func ownerOnlyModes(mode: Int) throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/state.json"
            try writeFile(Self.contents, to: path)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            #expect(FileSystem.inspectPrivateFile(atPath: path) == nil)
            #expect(
                try FileSystem.readPrivateFile(atPath: path, limit: 1024).get() == Array(Self.contents.utf8))
            #expect(
                try FileSystem.takePrivateFile(atPath: path, limit: 1024).get() == Array(Self.contents.utf8))
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("the size limit holds before reading")
    func sizeLimit() throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/state.json"
            try writeFile(String(repeating: "x", count: 2048), to: path)
            guard case .failure(.failed(let failure)) = FileSystem.readPrivateFile(atPath: path, limit: 1024)
            else {
                Issue.record("an oversized file was read")
                return
            }
            #expect(failure.code == .fileTooLarge)
        }
    }

    @Test(
        "a directory others can write without the sticky bit is refused, at any level; /tmp's sticky bit is fine"
    )
    func directories() throws {
        try inTemporaryDirectory { directory in
            let files = FileManager.default
            let shared = directory + "/shared"
            try files.createDirectory(atPath: shared + "/inner", withIntermediateDirectories: true)
            try writeFile(Self.contents, to: shared + "/inner/state.json")
            for (mode, words) in [
                (0o777, "writable by others (mode 0777)"), (0o775, "writable by its group (mode 0775)"),
            ] {
                try files.setAttributes([.posixPermissions: mode], ofItemAtPath: shared)
                for path in [shared + "/state.json", shared + "/inner/state.json"] {
                    let refusal = try #require(Self.refusal(FileSystem.inspectPrivateFile(atPath: path)))
                    #expect(refusal.reason == "the directory \(shared) is \(words) without the sticky bit")
                    #expect(Self.refusal(FileSystem.writePrivateFile([1], toPath: path))?.path == shared)
                }
            }
            #expect(!files.fileExists(atPath: shared + "/state.json"))
            // With the sticky bit (as /tmp has) others cannot replace our files: accepted.
            try files.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: shared)
            #expect(FileSystem.writePrivateFile([1], toPath: shared + "/state.json") == nil)
            #expect(
                try FileSystem.readPrivateFile(atPath: shared + "/inner/state.json", limit: 64).get().count
                    > 0)
            #expect(FileSystem.checkPrivateDirectories(of: "/tmp/state.json") == nil)
            // A missing directory holds nothing to refuse.
            #expect(FileSystem.inspectPrivateFile(atPath: directory + "/none/state.json") == nil)
        }
    }

    @Test(
        "a directory owned by another user is refused (needs root)",
        .enabled(if: HostileStateFile.canMakeOtherOwner, "not root: cannot chown a directory to uid 65534"))
    func directoryOfAnotherUser() throws {
        try inTemporaryDirectory { directory in
            let theirs = directory + "/theirs"
            try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.ownerAccountID: 65_534], ofItemAtPath: theirs)
            let refusal = try #require(
                Self.refusal(FileSystem.inspectPrivateFile(atPath: theirs + "/state.json")))
            #expect(refusal.reason.hasPrefix("the directory \(theirs) is owned by uid 65534"))
        }
    }

    @Test(
        "taking removes the file before its bytes are returned; exactly one of many racing takers gets them")
    func takeIsExclusive() throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/cookies.nts"
            try writeFile(Self.contents, to: path)
            #expect(
                try FileSystem.takePrivateFile(atPath: path, limit: 1024).get() == Array(Self.contents.utf8))
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try FileSystem.takePrivateFile(atPath: path, limit: 1024).get() == nil)
            for round in 0..<100 {
                #expect(FileSystem.writePrivateFile(Array("round \(round)".utf8), toPath: path) == nil)
                let winners = Mutex(0)
                let failures = Mutex([String]())
                runOnThreads(
                    (0..<6).map { _ in
                        {
                            switch FileSystem.takePrivateFile(atPath: path, limit: 1024) {
                            case .success(let bytes?):
                                winners.withLock { $0 += 1 }
                                if bytes != Array("round \(round)".utf8) {
                                    failures.withLock { $0.append("bytes") }
                                }
                            case .success(nil): break
                            case .failure(let error): failures.withLock { $0.append(error.reason) }
                            }
                        }
                    })
                #expect(winners.withLock { $0 } == 1, "round \(round)")
                #expect(failures.withLock { $0 }.isEmpty)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }
    }

    @Test("plain readFile (for /proc and CA bundles) does not block on a FIFO either")
    func plainReadOfAFIFO() throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/fifo"
            try HostileStateFile.fifo.make(at: path, contents: "")
            let outcome = try #require(Self.withinDeadline { FileSystem.readFile(atPath: path, limit: 64) })
            #expect((try? outcome.value.get()) == [])
        }
    }
}

/// What a thread run by `PrivateFileTests.withinDeadline` produced: a class, because a thread that
/// blocks outlives the call.
private final class DeadlineOutcome<T: Sendable>: Sendable {
    let value = Mutex<(T, Duration)?>(nil)
    let done = DispatchSemaphore(value: 0)
}
