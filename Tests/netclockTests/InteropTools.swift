#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LoopbackServers
import SNTP
import Testing
import TimeValues

/// Finding and running the real NTP programs (chrony, ntpsec's ntpdig) the interoperability tests
/// talk to, and deciding whether a test that binds a loopback port runs (the ports themselves: ``LoopbackPorts``).
enum InteropTool {
    /// Why a test of a peer over IPv6 loopback is skipped (``canBindOrRequired(host:port:)``).
    static let noIPv6Loopback: Comment =
        "no IPv6 loopback (::1) on this machine: skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    /// A failure while driving an external program; the message carries the program's own output.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// What a finished program printed.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
        /// Both streams: chronyd logs to stderr, ntpdig prints to stdout.
        var combined: String { stdout + stderr }
    }

    /// The absolute path of `name`: the `PATH` first, then the sbin directories, where Debian
    /// installs `chronyd` and which a non-login `PATH` may lack.
    static func path(of name: String) -> String? { TestExecutables.path(of: name) }

    /// Whether a test needing `names` should run: they are all installed, or CI requires every real
    /// peer (`NETCLOCK_REQUIRE_PEERS=1`), in which case ``require(_:sourceLocation:)`` fails the test.
    static func runnable(_ names: String...) -> Bool {
        CLIRunner.peersRequired || names.allSatisfy { path(of: $0) != nil }
    }

    /// The path of `name`, or a recorded test failure (only reached when CI requires the tool).
    static func require(_ name: String, package: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
        -> String
    {
        try #require(
            path(of: name),
            "\(name) is not installed, and NETCLOCK_REQUIRE_PEERS=1 requires it (apt-get install -y \(package))",
            sourceLocation: sourceLocation)
    }

    /// Runs `executable` with `arguments`, its output in files (no pipe can fill up), and waits at most
    /// `timeout`; a program still running then is stopped by its pid (``SpawnedProcess/terminate()``),
    /// so none is left behind. `environment`'s variables are added to the program's (e.g. libfaketime's).
    static func run(
        _ executable: String, _ arguments: [String], timeout: Duration, environment: [String: String] = [:]
    ) throws -> Output {
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-tool")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outPath = directory + "/stdout"
        let errPath = directory + "/stderr"
        let process = try SpawnedProcess(
            executable, arguments, stdout: outPath, stderr: errPath, environment: environment)
        let timedOut = !process.waitForExit(within: timeout)
        process.terminate()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Output(status: process.exitStatus ?? -1, stdout: stdout, stderr: stderr, timedOut: timedOut)
    }

    /// Whether a test needing to bind `host`:`port` should run: it can, or CI requires it (the test
    /// then fails on the bind with the errno).
    static func canBindOrRequired(host: String, port: UInt16) -> Bool {
        CLIRunner.peersRequired || LoopbackPorts.bindProbe(host: host, port: port) == 0
    }
}
