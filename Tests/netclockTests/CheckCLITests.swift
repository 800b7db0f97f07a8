import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import Testing
import TimeValues
import WallClockReference

@testable import NetclockCLI

/// `netclock check` end to end: the built binary against loopback fake servers and stored anchors.
@Suite(.serialized, .wallClockReference)
struct CheckCLITests {
    /// The first line's performance datum `label=VALUEs;…` as seconds.
    static func perfSeconds(_ label: String, in output: String) -> Double? {
        guard let line = output.split(separator: "\n").first, let bar = line.firstIndex(of: "|") else {
            return nil
        }
        for datum in line[line.index(after: bar)...].split(separator: " ") where datum.hasPrefix(label + "=")
        {
            let value = datum.dropFirst(label.count + 1).prefix { $0 != ";" }
            return Double(value.hasSuffix("s") ? value.dropLast() : value)
        }
        return nil
    }

    static func server(offset: Duration, dispersion: Duration? = nil) throws -> FakeNTPServer {
        var configuration = FakeNTPServer.Configuration(host: "127.0.0.1", offset: offset)
        if let dispersion { configuration.rootDispersion = dispersion }
        return try FakeNTPServer(configuration: configuration)
    }

    /// A server 0.7 s ahead with `-w 0.5 -c 1`: WARNING, the status line in the guidelines' shape,
    /// perfdata offset in check_ntp_time's sign, and the true 0.7 s within the printed bound.
    @Test func warningStatusLineAndPerfData() async throws {
        let server = try Self.server(offset: .milliseconds(700))
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "check", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "-w", "0.5", "-c", "1",
        ])
        #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.hasPrefix("NETCLOCK WARNING - system clock -0."), "\(output.stdout)")
        #expect(output.stdout.contains("from unauthenticated time (ntp): offset proven to alert -w 0.5|"))
        #expect(output.stdout.split(separator: "\n").count == 1, "one line without -v")
        let offset = try #require(Self.perfSeconds("offset", in: output.stdout), "\(output.stdout)")
        let bound = try #require(Self.perfSeconds("error_bound", in: output.stdout), "\(output.stdout)")
        // The server's clock is this machine's plus 0.7 s: the true offset, which the bound holds
        // (plus the perfdata's 1 µs rounding).
        #expect(abs(offset - 0.7) <= bound + 1e-6, "\(output.stdout)")
        #expect(output.stdout.contains(";0.5;1;; error_bound="))
        #expect(output.stdout.hasSuffix(" sources=1;;;0; authenticated=0;;;0;1\n"))
        #expect(output.stderr.isEmpty)
    }

    /// `-v` adds the source lines; `--json` the verdict as one object.
    @Test func verboseAndJSON() async throws {
        let server = try Self.server(offset: .milliseconds(20))
        defer { server.stop() }
        let arguments = [
            "check", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "-w", "0.5",
        ]
        let verbose = try await CLIRunner.run(arguments + ["-v"])
        #expect(verbose.status == 0, "\(verbose.stdout)\(verbose.stderr)")
        let lines = verbose.stdout.split(separator: "\n")
        #expect(
            lines.count == 2 && lines[0].hasPrefix("NETCLOCK OK - system clock -0.0"), "\(verbose.stdout)")
        #expect(lines.last?.hasPrefix("127.0.0.1:\(server.port)  offset +") == true, "\(verbose.stdout)")
        let json = try await CLIRunner.run(arguments + ["--json"]).json()
        #expect(json["status"] as? String == "ok")
        #expect(json["exit_status"] as? Int == 0)
        #expect(json["authenticated"] as? Bool == false && json["downgrade"] as? Bool == false)
        let offset = try #require(json["offset"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        #expect(abs(offset - 0.02) <= bound)
        #expect((json["reasons"] as? [String])?.isEmpty == true)
    }

    /// No reply: UNKNOWN (no trusted time), not CRITICAL.
    @Test func noReplyIsUnknown() async throws {
        var configuration = FakeNTPServer.Configuration(host: "127.0.0.1", offset: .zero)
        configuration.behaviour = .noReply
        let server = try FakeNTPServer(configuration: configuration)
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "check", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "1", "--timeout", "0.2",
        ])
        #expect(output.status == 3)
        #expect(output.stdout.hasPrefix("NETCLOCK UNKNOWN - no trusted time: "), "\(output.stdout)")
        #expect(output.stdout.hasSuffix("|sources=0;;;0;\n"), "\(output.stdout)")
    }

    /// Usage errors are UNKNOWN with a status line (the guidelines' rule), the reason on stderr.
    @Test(arguments: [
        (["-w", "2:1"], "invalid -w 2:1 (a range: 10, 10:, ~:10, 10:20 or @10:20)"),
        (["-c", "abc"], "invalid -c abc (a range: 10, 10:, ~:10, 10:20 or @10:20)"),
        (["--max-age", "5"], "--max-age needs --state"),
        (
            ["--state", "/nonexistent/a", "127.0.0.1"],
            "check --state reads the stored anchor: no SERVER, --http or --roughtime with it"
        ),
        (["--max-bound", "0"], "invalid --max-bound 0 (seconds, >0-86400)"),
        (["--count", "2"], "unknown option --count"),
    ])
    func usageErrorsAreUnknown(arguments: [String], reason: String) async throws {
        let output = try await CLIRunner.run(["check"] + arguments)
        #expect(output.status == 3)
        #expect(output.stdout == "NETCLOCK UNKNOWN - usage: \(reason)\n")
        #expect(output.stderr == "netclock: \(reason)\nsee 'netclock check --help'\n")
    }

    /// `check --help` in the guidelines' shape; `netclock --help` lists the command and options.
    @Test func help() async throws {
        let output = try await CLIRunner.run(["check", "--help"])
        #expect(output.status == 0)
        #expect(output.stdout == CheckHelp.text + "\n")
        for part in [
            "netclock check 0.1.0\n", "\nUsage:\n netclock check [SERVER ...]", "\nOptions:\n",
            "\n -w, --warning RANGE\n    check: WARNING unless", "\n -c, --critical RANGE\n",
            "\n --max-bound SEC\n", "\n --max-age SEC\n", "\n -v, --verbose\n", "\nThresholds:\n",
            "#THRESHOLDFORMAT", "\nExamples:\n", "Exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.",
        ] {
            #expect(CheckHelp.text.contains(part), "\(part)")
        }
        #expect(!CheckHelp.text.contains("--metrics") && !CheckHelp.text.contains("--count"))
        #expect(CheckHelp.text.split(separator: "\n").allSatisfy { $0.count <= HelpText.width })
        #expect(HelpText.full.contains("check: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN"))
        #expect(HelpText.usage.contains("netclock check"))
    }

    /// `--state` alone: the stored anchor, no network traffic (the server is stopped before the
    /// check); UNKNOWN when missing or older than `--max-age`.
    @Test func fromTheStoredAnchor() async throws {
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-check")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        let missing = try await CLIRunner.run(["check", "--state", state])
        #expect(missing.status == 3)
        #expect(missing.stdout.hasPrefix("NETCLOCK UNKNOWN - no valid anchor: "), "\(missing.stdout)")
        let server = try Self.server(offset: .milliseconds(-1500))
        let sync = try await CLIRunner.run([
            "sync", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "--state", state,
        ])
        server.stop()
        #expect(sync.status == 0, "\(sync.stderr)")
        let output = try await CLIRunner.run(["check", "--state", state, "-w", "1", "-c", "2", "-v"])
        #expect(output.status == 1, "\(output.stdout)")
        #expect(output.stdout.hasPrefix("NETCLOCK WARNING - system clock +1."), "\(output.stdout)")
        #expect(output.stdout.contains("(anchor, 127.0.0.1:\(server.port))"), "\(output.stdout)")
        let offset = try #require(Self.perfSeconds("offset", in: output.stdout))
        let bound = try #require(Self.perfSeconds("error_bound", in: output.stdout))
        #expect(abs(offset + 1.5) <= bound + 1e-6, "\(output.stdout)")
        let age = try #require(Self.perfSeconds("age", in: output.stdout))
        #expect(age > 0 && age < 60, "\(output.stdout)")
        #expect(output.stdout.contains("\nanchor \(state): synced "))
        let old = try await CLIRunner.run([
            "check", "--state", state, "--max-age", "0.001", "-w", "1", "-c", "2",
        ])
        #expect(old.status == 3)
        #expect(old.stdout.contains("older than --max-age 0.001s"), "\(old.stdout)")

        // The same anchor named by another boot (its boot_id rewritten, still private): UNKNOWN.
        let bootID = try #require(AnchorStore.systemBootID())
        let text = try String(contentsOfFile: state, encoding: .utf8)
        #expect(text.contains(bootID))
        try Data(text.replacingOccurrences(of: bootID, with: "00000000-0000-0000-0000-000000000000").utf8)
            .write(to: URL(fileURLWithPath: state))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: state)
        let rebooted = try await CLIRunner.run(["check", "--state", state, "-w", "1", "-c", "2"])
        #expect(rebooted.status == 3)
        #expect(rebooted.stdout.hasPrefix("NETCLOCK UNKNOWN - no valid anchor: "), "\(rebooted.stdout)")
        #expect(rebooted.stdout.lowercased().contains("boot"), "\(rebooted.stdout)")
    }

    /// NTS configured, only an HTTP fallback answering: with `--nts-mode prefer` a downgrade,
    /// WARNING although the offset is fine, saying so; with `require` (the default) UNKNOWN.
    @Test func downgradeIsAWarning() async throws {
        let http = try HTTPTimeServer(
            configuration: HTTPTimeServer.Configuration(
                offset: .milliseconds(50), timestampHeaderName: "X-Server-Time-Ms"))
        defer { http.stop() }
        let closed = try LoopbackPorts.freeTCPPort(on: ["127.0.0.1"])
        let arguments = [
            "check", "--nts", "127.0.0.1:\(closed)", "--http", http.urlString, "--http-header",
            "X-Server-Time-Ms",
            "--timeout", "1", "-w", "0.5", "-c", "1",
        ]
        let prefer = try await CLIRunner.run(arguments + ["--nts-mode", "prefer"])
        #expect(prefer.status == 1, "\(prefer.stdout)\(prefer.stderr)")
        #expect(prefer.stdout.hasPrefix("NETCLOCK WARNING - system clock -0.0"), "\(prefer.stdout)")
        // The header's 1 ms resolution is within the bound.
        let offset = try #require(Self.perfSeconds("offset", in: prefer.stdout))
        let bound = try #require(Self.perfSeconds("error_bound", in: prefer.stdout))
        #expect(abs(offset - 0.05) <= bound + 1e-6, "\(prefer.stdout)")
        #expect(
            prefer.stdout.contains(
                "(http): downgrade: authenticated sources configured, only unauthenticated ones answered|"),
            "\(prefer.stdout)")
        let require = try await CLIRunner.run(arguments)
        #expect(require.status == 3, "\(require.stdout)\(require.stderr)")
        #expect(require.stdout.hasPrefix("NETCLOCK UNKNOWN - no trusted time"), "\(require.stdout)")
    }
}
