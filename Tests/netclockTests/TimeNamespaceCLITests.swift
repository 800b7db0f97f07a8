import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// Whether this process may create time namespaces, for ``TimeNamespaceCLITests``.
enum TimeNamespaces {
    /// Whether `unshare --time` works here (it needs root and a kernel with time namespaces), as
    /// the suite runs it (``TimeNamespaceCLITests/namespace(_:)``).
    static let canUnshare: Bool = {
        guard CLIRunner.hasTool("unshare") else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = TimeNamespaceCLITests.namespace(1) + ["true"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}

/// The anchor file across time namespaces, with the real `unshare --time` (root can create them
/// here): written in one namespace and read in another whose `CLOCK_MONOTONIC` and
/// `CLOCK_BOOTTIME` are shifted by +5 s, −5 s or a day, either way round, `now`, `set --dry-run`
/// and `check --state` hold the truth (a server on this machine's own clock: true offset zero)
/// inside a bound as tight as without the shift. Before, +5 s read 5 s off inside a 3.6 ms bound,
/// a day 86,400 s off, and −5 s was refused as "instants after now".
@Suite(
    .serialized,
    .enabled(
        if: TimeNamespaces.canUnshare || CLIRunner.peersRequired,
        "unshare --time is not permitted here (it needs root and a kernel with time namespaces); with NETCLOCK_REQUIRE_PEERS=1 this fails"
    ),
    .wallClockReference)
struct TimeNamespaceCLITests {
    /// The prefix that runs a command in a new time namespace shifted by `seconds` (none for 0).
    ///
    /// Setting a time namespace's offsets needs `CAP_SYS_TIME` over it, which the suite runs
    /// without: the namespace is made inside a new user namespace (root mapped to root), where the
    /// process holds every capability over its own namespaces and none over the machine's clock.
    static func namespace(_ seconds: Int) -> [String] {
        guard seconds != 0 else { return [] }
        return [
            "unshare", "--user", "--map-root-user", "--time", "--monotonic", "\(seconds)", "--boottime",
            "\(seconds)",
        ]
    }

    /// One case: the shift, and whether the file is written on the host (read in the namespace) or
    /// the reverse.
    struct Case: Sendable, CustomStringConvertible {
        var shift: Int
        var writtenOnTheHost: Bool
        var description: String {
            writtenOnTheHost ? "host → \(shift) s" : "\(shift) s → host"
        }
        var writer: Int { writtenOnTheHost ? 0 : shift }
        var reader: Int { writtenOnTheHost ? shift : 0 }
    }

    static let cases = [5, -5, 86_400].flatMap {
        [Case(shift: $0, writtenOnTheHost: true), Case(shift: $0, writtenOnTheHost: false)]
    }

    /// `now --json` in `namespace`: its JSON, timed.
    static func now(state: String, in shift: Int) async throws -> [String: Any] {
        let output = try await CLIRunner.run(
            ["now", "--state", state, "--json"], prefix: namespace(shift))
        #expect(output.status == 0, "now in \(shift) s: \(output.stderr)")
        return try output.json()
    }

    static func double(_ json: [String: Any], _ key: String) throws -> Double {
        try #require(json[key] as? Double, "\(key) in \(json)")
    }

    /// Written in one namespace, read in the other: the truth inside the bound, and the bound as
    /// tight as the writer's own `now` a moment before plus the growth over that moment.
    @Test func nowReadsTheSameAnchorInEveryNamespace() async throws {
        try #require(TimeNamespaces.canUnshare, "unshare --time is required (NETCLOCK_REQUIRE_PEERS=1)")
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        await concurrently(Self.cases) { scene in
            let directory = try StateFileCLITests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let state = directory + "/anchor.json"
            let sync = try await CLIRunner.run(
                ["sync", "127.0.0.1:\(server.port)", "--interval", "0", "--state", state],
                prefix: Self.namespace(scene.writer))
            #expect(sync.status == 0, "\(scene): \(sync.stderr)")
            let start = ContinuousClock.now
            let unshifted = try await Self.now(state: state, in: scene.writer)
            let shifted = try await Self.now(state: state, in: scene.reader)
            let between = (ContinuousClock.now - start).secondsDouble
            for (name, json) in [("writer", unshifted), ("reader", shifted)] {
                let offset = try Self.double(json, "offset")
                let bound = try Self.double(json, "error_bound")
                #expect(abs(offset) <= bound, "\(scene) \(name): \(json)")
            }
            // The reader's bound is the writer's grown over the time between the two runs, at the
            // rate the clock says it grows; a shift the conversion missed would not fit in it.
            let growth = try #require((unshifted["frequency"] as? [String: Any])?["growth_ppm"] as? Double)
            let allowed = try Self.double(unshifted, "error_bound") + growth * 1e-6 * between + 1e-6
            #expect(
                try Self.double(shifted, "error_bound") <= allowed, "\(scene): \(shifted) vs \(unshifted)")
            #expect(try Self.double(shifted, "age") >= Self.double(unshifted, "age"), "\(scene)")
        }
    }

    /// `set --dry-run` and `check --state` in a namespace read the host's anchor as `now` does: the
    /// stored anchor and the fresh sync agree (no discontinuity, no lost history), the clock is
    /// inside the trusted interval, and the check is OK with the truth inside its bound.
    @Test(arguments: [5, -5, 86_400])
    func setAndCheckReadTheHostsAnchorInANamespace(shift: Int) async throws {
        try #require(TimeNamespaces.canUnshare, "unshare --time is required (NETCLOCK_REQUIRE_PEERS=1)")
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        let directory = try StateFileCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        let sync = try await CLIRunner.run([
            "sync", "127.0.0.1:\(server.port)", "--interval", "0", "--state", state,
        ])
        #expect(sync.status == 0, "\(sync.stderr)")

        let check = try await CLIRunner.run(
            ["check", "--state", state, "--max-age", "600", "-w", "0.5", "-c", "1", "--json"],
            prefix: Self.namespace(shift))
        #expect(check.status == 0, "check in \(shift) s: \(check.stdout)\(check.stderr)")
        let verdict = try check.json()
        #expect(verdict["status"] as? String == "ok", "\(verdict)")
        #expect(try abs(Self.double(verdict, "offset")) <= Self.double(verdict, "error_bound"), "\(verdict)")
        #expect(try Self.double(verdict, "error_bound") < 0.01, "\(verdict)")

        // `set` without --dry-run never runs here; dropping CAP_SYS_TIME all the same.
        let set = try await CLIRunner.run(
            [
                "set", "127.0.0.1:\(server.port)", "--samples", "1", "--interval", "0", "--state", state,
                "--dry-run", "--json",
            ], prefix: ClockCallRecorder.withoutSysTime + Self.namespace(shift))
        #expect(set.status == 0, "set in \(shift) s: \(set.stderr)")
        let json = try set.json()
        let update = json["anchor_update"] as? String
        #expect(["kept", "intersected", "adopted"].contains(update ?? ""), "\(shift) s: \(update ?? "nil")")
        let frequency = try #require(json["frequency"] as? [String: Any], "\(json)")
        #expect(frequency["syncs"] as? Int == 2, "the stored history was read: \(frequency)")
        #expect(json["frequency_reset"] is NSNull, "\(json)")
        let decision = try #require(json["set"] as? [String: Any], "\(json)")
        #expect(decision["action"] as? String == "none", "\(decision)")
        #expect(
            try abs(Self.double(decision, "correction")) <= Self.double(decision, "error_bound"),
            "\(decision)")
    }
}
