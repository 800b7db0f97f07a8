import Foundation
import LoopbackServers
import Testing

/// The boot units of `Tools/systemd` (issue 31): `systemd-analyze verify` accepts them without a
/// word (it needs no running systemd; the binary `ExecStart=` names must exist, so the built
/// `netclock` stands in for `/usr/bin/netclock`), and the service keeps the promises the README
/// makes of it.
@Suite struct SystemdUnitTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tools/systemd").standardizedFileURL.path
    static let units = ["netclock-set.service", "netclock-set.timer"]

    /// Whether `systemd-analyze` is installed (Debian's `systemd`), or CI requires it.
    static var runnable: Bool { CLIRunner.hasTool("systemd-analyze") || CLIRunner.peersRequired }

    @Test(
        .enabled(
            if: runnable,
            "systemd-analyze not installed (apt-get install systemd): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"
        ))
    func systemdAnalyzeVerifiesTheUnitsWithoutAWord() throws {
        #expect(
            CLIRunner.hasTool("systemd-analyze"), "systemd-analyze is required (NETCLOCK_REQUIRE_PEERS=1)")
        try #require(CLIRunner.hasTool("systemd-analyze"))
        let scratch = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-units")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for unit in Self.units {
            let text = try String(contentsOfFile: Self.directory + "/" + unit, encoding: .utf8)
            try text.replacingOccurrences(of: "/usr/bin/netclock", with: CLIRunner.url(of: "netclock").path)
                .write(toFile: scratch + "/" + unit, atomically: true, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["systemd-analyze", "verify", "--man=no"] + Self.units.map { scratch + "/" + $0 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed.isEmpty, "systemd-analyze verify: \(printed)")
    }

    @Test func theServiceRunsSetBeforeTimeSyncAndTimeWaitSyncWithOnlyCapSysTime() throws {
        let text = try String(contentsOfFile: Self.directory + "/netclock-set.service", encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map(String.init))
        for line in [
            "Type=oneshot", "After=network-online.target", "Before=time-sync.target",
            "Before=systemd-time-wait-sync.service",
            "CapabilityBoundingSet=CAP_SYS_TIME", "AmbientCapabilities=CAP_SYS_TIME",
            "StateDirectory=netclock",
            "DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict",
            "ExecStart=/usr/bin/netclock set --state ${STATE_DIRECTORY}/anchor.json $NETCLOCK_SET_ARGS",
        ] {
            #expect(lines.contains(line), "missing \(line)")
        }
        #expect(!lines.contains("ProtectClock=yes"), "the unit's job is setting the clock")
        #expect(!lines.contains("ProtectProc=invisible"), "netclock looks for other time daemons in /proc")
    }
}
