import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// Many `netclock sync --state F` processes at once: each merges its result into the file under the
/// lock beside it (`F.lock`), so none is lost; and a hostile lock file is refused before any
/// traffic, like a hostile state file.
@Suite(.serialized, .wallClockReference)
struct StateFileConcurrencyTests {
    /// A syncing process: one of the twelve.
    struct Run: Sendable, CustomStringConvertible {
        var number: Int
        var description: String { "sync \(number)" }
    }

    /// Twelve syncs started at once against one server leave a frequency history of twelve sync
    /// points (each run read the file before most of the others wrote it; before the lock the last
    /// writer won and the history held one point).
    @Test func twelveConcurrentSyncsKeepEverySyncPoint() async throws {
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        let directory = try SyncNowCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("anchor.json").path
        await concurrently((1...12).map(Run.init)) { run in
            let output = try await CLIRunner.run([
                "sync", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "--state", state,
                "--json",
            ])
            #expect(output.status == 0, "\(run): \(output.stderr)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: state))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frequency = try #require(file["frequency"] as? [String: Any], "\(file)")
        let points = try #require(frequency["points"] as? [[String: Any]], "\(frequency)")
        #expect(points.count == 12, "\(points.count) sync points kept of 12")
        #expect(frequency["resets"] as? Int == 0, "\(frequency)")
        // The anchor the file ends with still holds the truth (the server is on this machine's clock).
        let now = try await CLIRunner.run(["now", "--state", state, "--json"]).json()
        let offset = try #require(now["offset"] as? Double)
        let bound = try #require(now["error_bound"] as? Double)
        #expect(abs(offset) <= bound, "\(now)")
        #expect((now["frequency"] as? [String: Any])?["syncs"] as? Int == 12, "\(now)")
    }

    /// A lock file that is not private (each hostile kind) ends `sync` with status 1 before it sends
    /// anything, and is left as it was.
    @Test(arguments: StateFileCLITests.kinds)
    func syncRefusesAHostileLockFile(kind: HostileStateFile) async throws {
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        let directory = try StateFileCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        let lock = state + ".lock"
        try kind.make(at: lock, contents: "")
        let output = try await CLIRunner.run([
            "sync", "127.0.0.1:\(server.port)", "--interval", "0", "--state", state, "--json",
        ])
        #expect(output.status == 1, "\(kind): \(output.stderr)")
        #expect(
            output.stderr.contains("refusing the state file: \(lock) \(kind.reasonWords)"),
            "\(kind): \(output.stderr)")
        #expect(try output.json()["error_code"] as? String == kind.code, "\(output.stdout)")
        #expect(server.requestCount == 0, "\(kind): the server was asked")
        #expect(kind.isIntact(at: lock, contents: ""), "\(kind)")
        #expect(!FileManager.default.fileExists(atPath: state), "\(kind)")
    }
}
