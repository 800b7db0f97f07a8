import Foundation
import LoopbackServers
import NetClockPlatform
import NetClockTLS
import Roughtime
import SNTP
import Testing
import TimeValues
import WallClockReference

/// `netclock query|sync --roughtime FILE` in a child process, as scripts use it: against
/// `roughly` servers (two honest ones; a third, validly signed, an hour ahead) and against every
/// hostile answer of the fake Roughtime server, which must never give time or move a stored anchor.
///
/// The servers run on this machine's clock, so the truth is the local wall clock: the reported
/// offset must be within the reported bound of zero.
@Suite(.serialized, .wallClockReference, .roughlyServers)
struct RoughtimeCLITests {
    /// Output of one run.
    struct Run {
        var status: Int32
        var output: String

        /// The `--json` object (the one line of output that is JSON; notes on stderr are not).
        func json() throws -> [String: Any] {
            let line = try #require(
                output.split(separator: "\n").last { $0.hasPrefix("{") }, "no JSON in \(output)")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The built `netclock`: the test bundle sits beside it.
    static var netclock: String { TestExecutables.productsDirectory.appendingPathComponent("netclock").path }

    /// Runs `netclock ARGUMENTS`, at most 30 s.
    static func run(_ arguments: [String], in directory: String) throws -> Run {
        let outputPath = directory + "/netclock-\(UUID().uuidString).log"
        let process = try SpawnedProcess(netclock, arguments, stdout: outputPath, stderr: outputPath)
        let finished = process.waitForExit(within: .seconds(30))
        process.terminate()
        let output = PeerFailure.contents(of: outputPath)
        try #require(finished, "netclock \(arguments) did not finish: \(output)")
        return Run(status: process.exitStatus ?? -1, output: output)
    }

    static func ecosystem(_ entries: [String], in directory: String) throws -> String {
        let path = directory + "/ecosystem.json"
        try "{\"servers\": [\(entries.joined(separator: ",\n"))]}".write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.enabled(if: RoughlyPeer.runnable, RoughlyPeer.skipReason))
    func twoRoughlyServersGiveAuthenticatedTimeWithinTheirRadius() throws {
        let servers = try RoughlyServers.require().honest
        let directory = try RoughlyPeer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = try Self.ecosystem(servers.map(\.ecosystemEntry), in: directory)
        let run = try Self.run(["query", "--roughtime", list, "--json"], in: directory)
        #expect(run.status == 0, "\(run.output)")
        let json = try run.json()
        #expect(json["authenticated"] as? Bool == true)
        #expect(json["source"] as? String == "roughtime")
        let offset = try #require(json["offset"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        // roughly signs ±3 s; loopback round trips add under a millisecond.
        #expect(abs(offset) <= bound && bound <= 3.01, "\(run.output)")
        let roughtime = try #require(json["roughtime"] as? [String: Any])
        let statuses = (roughtime["servers"] as? [[String: Any]])?.compactMap { $0["status"] as? String }
        #expect(statuses == ["agreed", "agreed"])
        #expect((roughtime["liars"] as? [String])?.isEmpty == true)
        #expect((json["servers"] as? [Any])?.isEmpty == true, "no NTP server is asked with --roughtime alone")

        let text = try Self.run(["query", "--roughtime", list], in: directory)
        #expect(text.status == 0)
        #expect(text.output.contains("(roughtime, roughtime (2 of 2"), "\(text.output)")
        #expect(text.output.contains(", authenticated)"))
    }

    @Test(
        .enabled(if: RoughlyPeer.runnable, RoughlyPeer.skipReason),
        .enabled(
            if: LibFaketime.path != nil || RoughlyPeer.peersRequired,
            "libfaketime is not installed (apt-get install -y faketime)"))
    func aLiarAnHourAheadIsNamedAndItsProofAcceptedByRoughly() throws {
        let servers = try RoughlyServers.require()
        let (honest, liar) = (servers.honest, try servers.requireLiar())
        let directory = try RoughlyPeer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = try Self.ecosystem((honest + [liar]).map(\.ecosystemEntry), in: directory)
        let report = directory + "/malfeasance.json"
        let run = try Self.run(
            ["query", "--roughtime", list, "--malfeasance-report", report, "--json"], in: directory)
        #expect(run.status == 0, "\(run.output)")
        let json = try run.json()
        let offset = try #require(json["offset"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        #expect(abs(offset) <= bound, "the honest majority decides: \(run.output)")
        #expect(json["authenticated"] as? Bool == true)
        let roughtime = try #require(json["roughtime"] as? [String: Any])
        #expect(roughtime["liars"] as? [String] == ["roughly-\(liar.port)"])
        #expect(roughtime["malfeasance_report"] as? String == report)
        #expect(run.output.contains("proof that roughly-\(liar.port) lied"))
        let confirmation = try RoughlyPeer.confirmMalfeasance(report)
        #expect(confirmation.confirmed, "roughly's checker: \(confirmation.output)")
    }

    /// Every hostile answer: `sync` exits 1 with the reason and leaves the stored anchor exactly as
    /// it was (a first sync against an honest fake stored one). Each case has its own server and
    /// state and only waits on its children, so the cases run at once; every message names
    /// its behaviour.
    @Test func aHostileAnswerNeverMovesTheStoredAnchor() async throws {
        let runs = try await BlockingCases.run(
            FakeRoughtimeServer.Behaviour.hostile, lanes: FakeRoughtimeServer.Behaviour.hostile.count
        ) { behaviour in
            try Self.hostileSync(behaviour)
        }
        #expect(runs.count == FakeRoughtimeServer.Behaviour.hostile.count)
        for (behaviour, run) in runs {
            #expect(run.first.status == 0, "\(behaviour): the honest sync: \(run.first.output)")
            #expect(run.hostile.status == 1, "\(behaviour): \(run.hostile.output)")
            let json = try run.hostile.json()
            let roughtime = try #require(
                json["roughtime"] as? [String: Any], "\(behaviour): \(run.hostile.output)")
            let report = try #require(
                (roughtime["servers"] as? [[String: Any]])?.first, "\(behaviour): \(run.hostile.output)")
            #expect(
                ["rejected", "timed_out"].contains(report["status"] as? String),
                "\(behaviour): \(run.hostile.output)")
            #expect(run.after == run.stored, "\(behaviour) moved the anchor")
        }
    }

    /// One case of ``aHostileAnswerNeverMovesTheStoredAnchor()`` (blocking): an honest `sync`
    /// storing an anchor, then one against `behaviour`; both runs and the state file before and
    /// after the second.
    static func hostileSync(_ behaviour: FakeRoughtimeServer.Behaviour) throws -> (
        first: Run, hostile: Run, stored: Data, after: Data?
    ) {
        let configuration = try FakeRoughtimeServer.Configuration()
        let key = configuration.longTermKey
        let server = try FakeRoughtimeServer(configuration: configuration)
        defer { server.stop() }
        let directory = try RoughlyPeer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entry = """
            {"name": "fake", "version": 1, "publicKeyType": "ed25519", "publicKey": "\(Base64.encode(key.publicKey))",
             "addresses": [{"protocol": "udp", "address": "\(server.hostAndPort)"}]}
            """
        let list = try Self.ecosystem([entry], in: directory)
        let state = directory + "/anchor.json"
        // A 0.3 s timeout per exchange: a refused reply costs the whole wait, loopback needs 1 ms.
        let arguments = ["sync", "--roughtime", list, "--state", state, "--timeout", "0.3", "--json"]
        let first = try Self.run(arguments, in: directory)
        let stored = try Data(contentsOf: URL(fileURLWithPath: state))

        server.update { $0.behaviour = behaviour }
        let hostile = try Self.run(arguments, in: directory)
        return (first, hostile, stored, try? Data(contentsOf: URL(fileURLWithPath: state)))
    }
}
