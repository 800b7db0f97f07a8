import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import Testing
import TimeValues
import WallClockReference

/// `netclock sync` then `netclock now`, including under the real `faketime` tool: the wall clock of
/// `now` is shifted by an hour, as a user changing the date would, and the trusted time must not move.
@Suite(.serialized, .wallClockReference)
struct SyncNowCLITests {
    /// libfaketime's preload library, wherever this machine has it: Debian installs it under the
    /// multiarch directory, which differs by architecture (`/usr/lib/x86_64-linux-gnu/faketime/`,
    /// `/usr/lib/aarch64-linux-gnu/faketime/`, …); other layouts use `/usr/lib/faketime/`. As a last
    /// resort, the file list of Debian's `libfaketime` package.
    static let libfaketime: String? = {
        let files = FileManager.default
        let name = "libfaketime.so.1"
        var candidates: [String] = []
        for lib in ["/usr/lib", "/usr/lib64", "/usr/local/lib"] {
            let subdirectories = (try? files.contentsOfDirectory(atPath: lib)) ?? []
            candidates += subdirectories.sorted().map { "\(lib)/\($0)/faketime/\(name)" }
            candidates.append("\(lib)/faketime/\(name)")
        }
        if let found = candidates.first(where: { files.fileExists(atPath: $0) }) { return found }
        return packageFiles("libfaketime").first { $0.hasSuffix("/" + name) && files.fileExists(atPath: $0) }
    }()

    static var hasFaketime: Bool { libfaketime != nil || CLIRunner.peersRequired }
    static let faketimeRequired = Comment(
        rawValue: "libfaketime.so.1 is not installed, and NETCLOCK_REQUIRE_PEERS=1 requires it"
            + " (apt-get install -y faketime)")

    /// The files Debian's package `package` installed (`dpkg-query -L`), or none.
    static func packageFiles(_ package: String) -> [String] {
        guard let dpkgQuery = InteropTool.path(of: "dpkg-query"),
            let output = try? InteropTool.run(dpkgQuery, ["-L", package], timeout: .seconds(10)),
            output.status == 0
        else { return [] }
        return output.stdout.split(separator: "\n").map(String.init)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Syncs against a fake server whose clock is `offset` ahead and returns the state file.
    static func sync(offset: Duration, in directory: URL) async throws -> (FakeNTPServer, String) {
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: offset))
        let state = directory.appendingPathComponent("anchor.json").path
        let output = try await CLIRunner.run([
            "sync", "127.0.0.1:\(server.port)", "--interval", "0", "--state", state,
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.contains("saved to \(state)"))
        // One sync measures no frequency: the bound grows at the 500 ppm prior until a second.
        #expect(
            output.stdout.contains(
                "frequency not measured yet (1 sync): the bound grows 500.000 ppm of the time offline"))
        return (server, state)
    }

    @Test func nowPrintsTheSyncedTimeWithoutNetwork() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, state) = try await Self.sync(offset: .milliseconds(1500), in: directory)
        let requestsAfterSync = server.requestCount
        server.stop()
        let before = Date().timeIntervalSince1970
        let output = try await CLIRunner.run(["now", "--state", state, "--json"])
        let after = Date().timeIntervalSince1970
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let json = try output.json()
        let unix = try #require(json["unix"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        // True time = this machine's clock + 1.5 s; `now` ran between `before` and `after`.
        #expect(unix >= before + 1.5 - bound - 0.001 && unix <= after + 1.5 + bound + 0.001)
        #expect(bound > 0 && bound < 0.01)
        #expect(json["source"] as? String == "restored")
        #expect(json["server"] as? String == "127.0.0.1:\(server.port)")
        #expect((json["age"] as? Double).map { $0 >= 0 && $0 < 30 } == true)
        #expect((json["time"] as? String)?.hasSuffix("Z") == true)
        #expect(server.requestCount == requestsAfterSync)
        // The frequency: one sync, so only the 500 ppm prior (positive: the oscillator runs fast).
        let frequency = try #require(json["frequency"] as? [String: Any])
        #expect(frequency["measured"] as? Bool == false && frequency["syncs"] as? Int == 1)
        #expect(
            frequency["interval_ppm"] as? [Double] == [-500, 500] && frequency["growth_ppm"] as? Double == 500
        )
        #expect((frequency["age"] as? Double).map { $0 >= 0 && $0 < 30 } == true)
        #expect(frequency["resets"] as? Int == 0 && frequency["last_reset"] is NSNull)
        // The kernel's own view: on Linux an object whose values lie within what the kernel allows
        // (maxerror stops at 16 s, freq at ±500 ppm); elsewhere null.
        #if os(Linux)
            let systemClock = try #require(json["system_clock"] as? [String: Any])
            #expect(systemClock["synchronized"] is Bool)
            let maximumError = try #require(systemClock["maximum_error"] as? Double)
            #expect(maximumError >= 0 && maximumError <= 16)
            #expect((systemClock["frequency_ppm"] as? Double).map { abs($0) <= 500 } == true)
        #else
            #expect(json["system_clock"] is NSNull)
        #endif
        let text = try await CLIRunner.run(["now", "--state", state])
        #expect(text.status == 0)
        #expect(text.stdout.contains(" ± ") && text.stdout.contains("restored"))
    }

    @Test(
        .enabled(
            if: hasFaketime,
            "libfaketime.so.1 not found (apt-get install faketime): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"
        ))
    func aWallClockShiftedAnHourAheadDoesNotMoveTrustedTime() async throws {
        let libfaketime = try #require(Self.libfaketime, Self.faketimeRequired)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, state) = try await Self.sync(offset: .milliseconds(250), in: directory)
        server.stop()
        let before = Date().timeIntervalSince1970
        let output = try await CLIRunner.run(
            ["now", "--state", state, "--json"],
            environment: [
                "LD_PRELOAD": libfaketime, "FAKETIME": "+3600s", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                "FAKETIME_NO_CACHE": "1",
            ])
        let after = Date().timeIntervalSince1970
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let json = try output.json()
        let unix = try #require(json["unix"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        #expect(
            unix >= before + 0.25 - bound - 0.001 && unix <= after + 0.25 + bound + 0.001,
            "trusted time moved: \(unix - before)")
        // The process saw its wall clock an hour ahead: true − wall ≈ −3600 + 0.25 s.
        let offset = try #require(json["offset"] as? Double)
        #expect(
            abs(offset - (-3600 + 0.25)) < 0.05, "offset \(offset): faketime did not shift the wall clock")
    }

    @Test func afterARebootNowRefusesTheAnchor() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, state) = try await Self.sync(offset: .zero, in: directory)
        server.stop()
        var text = try String(contentsOfFile: state, encoding: .utf8)
        let bootID = try #require(AnchorStore.systemBootID())
        #expect(text.contains(bootID))
        text = text.replacingOccurrences(of: bootID, with: "00000000-0000-0000-0000-000000000000")
        try text.write(toFile: state, atomically: true, encoding: .utf8)
        // Private again, as state files must be (the atomic write made a 0644 file).
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: state)
        let output = try await CLIRunner.run(["now", "--state", state])
        #expect(output.status == 1)
        #expect(output.stderr.contains("no valid anchor"))
        #expect(output.stderr.lowercased().contains("boot"))
    }

    @Test func nowWithoutAnyAnchorExitsOne() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try await CLIRunner.run([
            "now", "--state", directory.appendingPathComponent("none.json").path,
        ])
        #expect(output.status == 1)
        #expect(output.stderr.contains("no valid anchor"))
        let corrupt = directory.appendingPathComponent("corrupt.json").path
        try "{\"version\": 1, \"boot".write(toFile: corrupt, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: corrupt)
        let second = try await CLIRunner.run(["now", "--state", corrupt, "--json"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("truncated"), "\(second.stderr)")
        #expect(second.stdout.isEmpty)
    }

    @Test func syncKeepsAStoredAnchorThatIsBetter() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (good, state) = try await Self.sync(offset: .zero, in: directory)
        good.stop()
        let stored = try await CLIRunner.run(["now", "--state", state, "--json"]).json()
        let storedBound = try #require(stored["error_bound"] as? Double, "\(stored)")
        // A second sync through a slow server has a far looser bound: the stored anchor stays. Its
        // delay is split evenly, so its interval (T3 − T4 … T2 − T1) reaches at least the one-way
        // delay d past the truth on both sides. The stored interval contains the truth and is
        // 2 × its bound wide, so it lies inside the slow one (kept, not intersected) when d is at
        // least twice the stored bound by then. That bound is not always small: under load the
        // good sync's whole burst can wait on a descheduled client, and its interval then widens to
        // tens of milliseconds on one side. So d is twice the stored bound (and at least 20 ms),
        // plus 10 ms for its growth (500 ppm) over the 20 s the next process may take under load.
        let oneWay =
            Duration.milliseconds(max(20, Int64((2 * storedBound * 1000).rounded(.up)))) + .milliseconds(10)
        var configuration = FakeNTPServer.Configuration()
        configuration.outboundDelay = .constant(oneWay)
        configuration.returnDelay = .constant(oneWay)
        let slow = try FakeNTPServer(configuration: configuration)
        defer { slow.stop() }
        let output = try await CLIRunner.run([
            "sync", "127.0.0.1:\(slow.port)", "--interval", "0", "--samples", "1", "--state", state, "--json",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let json = try output.json()
        #expect(json["anchor_replaced"] as? Bool == false)
        // Both syncs are in the frequency history (kept in the file across the two processes).
        let frequency = try #require(json["frequency"] as? [String: Any])
        #expect(frequency["syncs"] as? Int == 2)
        #expect((frequency["interval_ppm"] as? [Double])?.count == 2)
        #expect(json["frequency_reset"] is NSNull)
        let now = try await CLIRunner.run(["now", "--state", state, "--json"]).json()
        #expect(now["server"] as? String == "127.0.0.1:\(good.port)")
    }

    @Test func syncReportsAnUnwritableStateFile() async throws {
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "sync", "127.0.0.1:\(server.port)", "--interval", "0", "--state", "/proc/netclock/anchor.json",
        ])
        #expect(output.status == 1)
        #expect(output.stderr.contains("could not be saved"))
    }
}
