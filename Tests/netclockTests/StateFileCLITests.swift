import Foundation
import LoopbackServers
import NetClockPlatform
import Synchronization
import Testing
import WallClockReference

/// `netclock now|sync --state F` against hostile state files, in child processes: each kind at the
/// anchor path or the NTS cookie path exits 1 with its reason at once, sends nothing and leaves
/// the file as it was; and the NTS cookie file is taken before any cookie is sent, never shared
/// by two runs, and bound to the CA file's contents.
///
/// Wall times are asserted (< 1 s) because the defect is blocking: a FIFO opened without
/// `O_NONBLOCK` blocks for ever, so a second is far above a process start (~30 ms here) and far
/// below "never".
@Suite(
    .enabled(if: TestCertificates.runnable, "the openssl command is not installed"), .serialized,
    .wallClockReference)
struct StateFileCLITests {
    static let contents = "{\"version\": 1}\n"

    /// Every kind this process can make (the other-owner file needs root to chown).
    static let kinds =
        HostileStateFile.canMakeOtherOwner ? HostileStateFile.allCases : HostileStateFile.withoutRoot

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-state-cli-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func server(replyDelay: Duration = .zero) throws -> (FakeNTSServer, TestCertificates) {
        let certificates = try TestCertificates.require()
        var configuration = FakeNTSServer.Configuration(certificates: certificates)
        configuration.replyDelay = replyDelay
        return (try FakeNTSServer(configuration: configuration), certificates)
    }

    static func sync(
        _ server: FakeNTSServer, caFile: String, state: String, json: Bool = true, timeout: String = "0.3"
    ) async throws -> CLIRunner.Output {
        try await CLIRunner.run(
            [
                "sync", "--nts", "--ca-file", caFile, "--interval", "0", "--samples", "2", "--timeout",
                timeout,
                "--state", state,
            ] + (json ? ["--json"] : []) + ["localhost:\(server.kePort)"], timeout: 30)
    }

    /// Runs `netclock arguments` as a ``SpawnedProcess`` on a thread of its own and times it from
    /// the spawn to the exit. `CLIRunner` reads the child's pipes on Dispatch's global threads
    /// (2 on this machine), so its elapsed time also counts waiting for one of them while other
    /// suites run children; here output goes to files and nothing else stands between the clock
    /// readings and the child.
    static func runTimed(_ arguments: [String]) async throws -> CLIRunner.Output {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try runTimedBlocking(arguments) })
            }
            thread.start()
        }
    }

    private static func runTimedBlocking(_ arguments: [String]) throws -> CLIRunner.Output {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ContinuousClock()
        let start = clock.now
        let child = try SpawnedProcess(
            CLIRunner.url(of: "netclock").path, arguments, stdout: directory + "/out",
            stderr: directory + "/err")
        let exited = child.waitForExit(within: .seconds(10))
        let elapsed = clock.now - start
        child.terminate()
        func text(_ name: String) -> String {
            (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
        }
        return CLIRunner.Output(
            status: exited ? child.exitStatus ?? -1 : -1, stdout: text("out"), stderr: text("err"),
            elapsed: elapsed)
    }

    /// The `nts` object of the first source of a `sync --json` output.
    static func nts(_ output: CLIRunner.Output) throws -> [String: Any] {
        try #require((try output.json()["servers"] as? [[String: Any]])?.first?["nts"] as? [String: Any])
    }

    @Test("now --state HOSTILE exits 1 at once with the reason", arguments: kinds)
    func nowRefuses(kind: HostileStateFile) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        try kind.make(at: state, contents: Self.contents)
        for json in [false, true] {
            let output = try await Self.runTimed(["now", "--state", state] + (json ? ["--json"] : []))
            #expect(output.status == 1, "\(output.stderr)")
            #expect(output.stderr.contains("\(state) \(kind.reasonWords)"), "\(output.stderr)")
            #expect(output.stderr.contains("refusing the state file"))
            #expect(output.stdout.isEmpty)
            #expect(output.elapsed < .seconds(1), "\(kind): \(output.elapsed)")
            print("now --state \(kind): exit \(output.status) in \(output.elapsed)")
        }
        #expect(kind.isIntact(at: state, contents: Self.contents))
    }

    @Test(
        "sync --nts --state F exits 1 at once, before any traffic, when F or F.nts is hostile",
        arguments: kinds, [false, true])
    func syncRefuses(kind: HostileStateFile, atCookiePath: Bool) async throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        let hostile = atCookiePath ? state + ".nts" : state
        try kind.make(at: hostile, contents: Self.contents)
        let output = try await Self.runTimed(
            [
                "sync", "--nts", "--ca-file", certificates.caFile, "--interval", "0", "--samples", "2",
                "--timeout", "0.3", "--state", state, "--json", "localhost:\(server.kePort)",
            ])
        #expect(output.status == 1, "\(output.stderr)")
        #expect(
            output.stderr.contains("refusing the state file: \(hostile) \(kind.reasonWords)"),
            "\(output.stderr)")
        #expect(output.elapsed < .seconds(1), "\(kind): \(output.elapsed)")
        let json = try output.json()
        #expect(json.keys.sorted() == ["authenticated", "error", "error_code", "http", "servers", "state"])
        #expect(json["error_code"] as? String == kind.code)
        #expect(json["state"] as? String == hostile)
        #expect((json["error"] as? String)?.contains(kind.reasonWords) == true)
        #expect(json["authenticated"] as? Bool == false && (json["servers"] as? [Any])?.isEmpty == true)
        #expect(server.statistics.keHandshakes == 0 && server.statistics.cookiesPresented == 0)
        #expect(kind.isIntact(at: hostile, contents: Self.contents))
        #expect(atCookiePath || !FileManager.default.fileExists(atPath: state + ".nts"))
        print(
            "sync --nts, \(atCookiePath ? "F.nts" : "F") \(kind): exit \(output.status) in \(output.elapsed)")
    }

    @Test("the cookie file is gone before the first request of a sync reaches the server")
    func cookiesAreTakenBeforeAnyIsSent() async throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        let first = try await Self.sync(server, caFile: certificates.caFile, state: state)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: state + ".nts"))
        let before = server.statistics.cookiesPresented
        // Replies held back 400 ms: the run is still waiting while we look at its directory. The
        // watch runs on a thread of its own: the test's tasks cannot wake while the child's pipes
        // keep Dispatch's global threads (2 on this machine) busy.
        server.update { $0.replyDelay = .milliseconds(400) }
        let watch = CookieFileWatch()
        let watcher = Thread {
            let arrived = server.waitUntil(timeout: .seconds(10)) { $0.cookiesPresented > before }
            watch.record(
                arrived: arrived, fileExisted: FileManager.default.fileExists(atPath: state + ".nts"))
        }
        watcher.start()
        let output = try await Self.sync(server, caFile: certificates.caFile, state: state, timeout: "1")
        #expect(output.status == 0, "\(output.stderr)")
        let observed = try #require(watch.result(waiting: .seconds(10)), "the watch did not end")
        #expect(observed.arrived, "no NTS request arrived")
        // A kept cookie reached the server while the file it came from no longer existed.
        #expect(!observed.fileExisted, "the cookie file was still there when its first cookie was sent")
        #expect(try Self.nts(output)["key_exchanges"] as? Int == 0)
        // What is left is written back after the sync.
        #expect(FileManager.default.fileExists(atPath: state + ".nts"))
        #expect(server.statistics.repeatedCookies == 0)
    }

    @Test("two syncs started together never present the same cookie")
    func concurrentSyncsNeverShareACookie() async throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        let first = try await Self.sync(server, caFile: certificates.caFile, state: state)
        #expect(first.status == 0, "\(first.stderr)")
        var takers = 0
        for round in 0..<5 {
            async let a = Self.sync(server, caFile: certificates.caFile, state: state)
            async let b = Self.sync(server, caFile: certificates.caFile, state: state)
            let outputs = try await [a, b]
            #expect(outputs.allSatisfy { $0.status == 0 }, "\(outputs.map(\.stderr))")
            let exchanges = try outputs.map { try Self.nts($0)["key_exchanges"] as? Int ?? -1 }
            // At most one run found the file gone (taken by the other) and ran a key exchange.
            #expect(
                exchanges.allSatisfy { $0 == 0 || $0 == 1 } && exchanges.reduce(0, +) <= 1,
                "round \(round): \(exchanges)")
            takers += exchanges.filter { $0 == 0 }.count
        }
        #expect(takers >= 5)
        #expect(server.waitUntil(timeout: .seconds(2)) { $0.cookiesPresented >= 22 })
        #expect(server.statistics.repeatedCookies == 0, "cookies presented twice")
    }

    @Test("new CA contents at the same path retire the kept cookies; an old-format file is discarded")
    func cookiesAreBoundToTheCAContents() async throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        let ca = directory + "/ca.pem"
        let original = try String(contentsOfFile: certificates.caFile, encoding: .utf8)
        try original.write(toFile: ca, atomically: true, encoding: .utf8)
        let first = try await Self.sync(server, caFile: ca, state: state)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.nts(first)["key_exchanges"] as? Int == 1)
        let kept = try String(contentsOfFile: state + ".nts", encoding: .utf8)
        #expect(kept.contains("\"version\":2") && kept.contains("\"trust_sha256\""))

        // The same path now trusts one more certificate: the kept association is not used.
        let extra = try String(contentsOfFile: certificates.selfSignedCertificate, encoding: .utf8)
        try (original + extra).write(toFile: ca, atomically: true, encoding: .utf8)
        let swapped = try await Self.sync(server, caFile: ca, state: state)
        #expect(swapped.status == 0, "\(swapped.stderr)")
        #expect(try Self.nts(swapped)["key_exchanges"] as? Int == 1)
        #expect(swapped.stderr.contains("kept under other trust roots"), "\(swapped.stderr)")
        let same = try await Self.sync(server, caFile: ca, state: state)
        #expect(try Self.nts(same)["key_exchanges"] as? Int == 0, "\(same.stderr)")

        // A version 1 file (bound to the CA path only) is discarded with its reason.
        let version1 = kept.replacingOccurrences(of: "\"version\":2", with: "\"version\":1")
        try version1.write(toFile: state + ".nts", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: state + ".nts")
        let old = try await Self.sync(server, caFile: ca, state: state)
        #expect(old.status == 0, "\(old.stderr)")
        #expect(try Self.nts(old)["key_exchanges"] as? Int == 1)
        #expect(old.stderr.contains("format version 1"), "\(old.stderr)")
        #expect(server.statistics.repeatedCookies == 0)
    }
}

/// What the watcher thread of `cookiesAreTakenBeforeAnyIsSent` saw.
private final class CookieFileWatch: Sendable {
    private let observed = Mutex<(arrived: Bool, fileExisted: Bool)?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func record(arrived: Bool, fileExisted: Bool) {
        observed.withLock { $0 = (arrived, fileExisted) }
        done.signal()
    }

    /// What was seen, once the watch ended (nil after `limit`).
    func result(waiting limit: Duration) -> (arrived: Bool, fileExisted: Bool)? {
        guard done.wait(timeout: .now() + Double(limit.components.seconds)) == .success else { return nil }
        return observed.withLock { $0 }
    }
}
