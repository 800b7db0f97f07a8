import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues
import WallClockReference

/// `sync --state F` a few seconds before a fake server's month end (its clock offset to put it
/// there), then `now --state F --json` before and after its midnight: a server announcing an
/// inserted second (LI 1) steps its clock back 1 s at midnight, one announcing a deleted second
/// (LI 2) forward 1 s at 23:59:59, as a kernel applying STA_INS/STA_DEL does. The truth after is
/// the server's clock; `now`'s offset must match it within its bound. The bounds are the sync's
/// (well under 1 ms on loopback) grown by the 500 ppm prior over about 4 s (2 ms); 20 ms allows
/// for a loaded machine, while a clock that ignored the leap would be 1 s off. The three scenes'
/// syncs run at once, each with its own state file; ``LeapSmearingServerCLITests`` runs them beside
/// its own scenes, so that every leap scene waits for its midnight at the same time.
enum LeapAnnouncedScene {
    /// From the sync to the servers' midnight: the deleted second goes a second before it, and the
    /// syncs and `now`s before, all at once, must end half a second before that (checked); beside
    /// the smearing scenes on this 2-core machine, shared with other builds (load about 7), with or
    /// without a core kept busy, they took 0.6–0.9 s.
    static let lead: Duration = .seconds(3)
    /// Past the servers' midnight when the `now`s after it run: well past the instants the bound
    /// (under 20 ms) straddles the step, where it widens by the second.
    static let past: Duration = .milliseconds(500)

    struct Scene {
        var server: FakeNTPServer
        var state: String
    }

    /// A server `lead` before its month end, announcing `leap` and applying it there when
    /// `steps`.
    static func server(leap: NTPPacket.LeapIndicator, steps: Bool, midnight: UnixTime, now: UnixTime)
        throws -> FakeNTPServer
    {
        var configuration = FakeNTPServer.Configuration(offset: (midnight - lead) - now)
        configuration.leap = leap
        configuration.leapMidnight = steps ? midnight : nil
        return try FakeNTPServer(configuration: configuration)
    }

    static func now(_ state: String) async throws -> (offset: Double, bound: Double, leap: [String: Any]) {
        let output = try await CLIRunner.run(["now", "--state", state, "--json"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let json = try output.json()
        return (
            try #require(json["offset"] as? Double), try #require(json["error_bound"] as? Double),
            try #require(json["leap"] as? [String: Any])
        )
    }

    /// Announced by LI: inserted and deleted seconds, and a split vote that widens the bound.
    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-leap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let wall = SystemWallClock().now()
        let midnight = FakeNTPServer.monthEnd(after: wall)
        let insert = try Self.server(leap: .insertSecond, steps: true, midnight: midnight, now: wall)
        let delete = try Self.server(leap: .deleteSecond, steps: true, midnight: midnight, now: wall)
        let silent = try Self.server(leap: .noWarning, steps: false, midnight: midnight, now: wall)
        defer { [insert, delete, silent].forEach { $0.stop() } }
        let offset = ((midnight - Self.lead) - wall).secondsDouble
        let cases: [(name: String, servers: [FakeNTPServer], kind: String, step: Double)] = [
            ("insert", [insert], "insert", -1), ("delete", [delete], "delete", 1),
            ("split", [insert, silent], "unknown", 0),
        ]
        let states = cases.map { directory.appendingPathComponent("\($0.name).json").path }
        let scenes = cases.map { (name: $0.name, kind: $0.kind) }
        let servers = cases.map { $0.servers.map { "127.0.0.1:\($0.port)" } }
        await concurrently(Array(cases.indices)) { index in
            let (name, kind, state) = (scenes[index].name, scenes[index].kind, states[index])
            let output = try await CLIRunner.run(
                ["sync"] + servers[index] + [
                    "--interval", "0", "--state", state, "--leap-seconds", "none", "--json",
                ])
            #expect(output.status == 0, "stderr: \(output.stderr)")
            let leap = try #require(try output.json()["leap"] as? [String: Any])
            #expect(leap["kind"] as? String == kind, "\(name)")
            #expect(leap["at"] as? String == ISO8601.format(midnight, fractionDigits: 0))
            if name == "split" {
                #expect((leap["disagreeing"] as? [String])?.count == 2)
            }
            let before = try await Self.now(state)
            #expect(abs(before.offset - offset) <= before.bound, "\(name) before")
            #expect(before.bound < 0.02)
        }
        print(
            "leap figures: the syncs and nows before took \((SystemWallClock().now() - wall).secondsDouble) s"
        )
        #expect(
            SystemWallClock().now() < wall + Self.lead - .milliseconds(1500),
            "the syncs and nows before took too long")
        // Past the servers' midnight (local `wall` + lead) by `past`.
        let wait = ((wall + Self.lead + Self.past) - SystemWallClock().now()).secondsDouble
        try await Task.sleep(for: .seconds(max(0, wait)))
        for (scene, state) in zip(cases, states) {
            let after = try await Self.now(state)
            let truth = offset + scene.step
            #expect(abs(after.offset - truth) <= after.bound, "\(scene.name) after: \(after)")
            if scene.name == "split" {
                // Either server may be right: the bound covers the second both ways.
                #expect(after.bound >= 1 && after.bound < 1.02)
                #expect(abs(after.offset - (offset - 1)) <= after.bound)
            } else {
                #expect(abs(after.offset - truth) < 0.02)
                #expect(after.bound < 0.02)
            }
        }
    }
}
