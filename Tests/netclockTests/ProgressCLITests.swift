import Foundation
import LoopbackServers
import NetworkClock
import SNTP
import Testing
import TimeValues
import WallClockReference

/// The live status line end to end: the built binary against a slow loopback server (each reply
/// 300 ms late, so a round of four takes about 1.2 s).
@Suite(.serialized, .wallClockReference)
struct ProgressCLITests {
    static func slowServer() throws -> FakeNTPServer {
        var configuration = FakeNTPServer.Configuration(offset: .milliseconds(1500))
        configuration.returnDelay = .constant(.milliseconds(300))
        return try FakeNTPServer(configuration: configuration)
    }

    /// Both halves at once, each with its own slow server: most of each is the server's late
    /// replies, and what is checked is what each run wrote (and that its round was slow, which
    /// running beside others cannot make it less). `script(1)` is in util-linux (Debian's essential
    /// bsdutils); without it only the pipe half runs, and says so.
    @Test func statusLineOnlyOnATerminal() async throws {
        async let pipes: Void = Self.noStatusWhenStandardErrorIsNotATerminal()
        async let terminal: Void = Self.statusLineAppearsAndIsErasedOnATerminal()
        try await pipes
        try await terminal
    }

    /// Standard error is a pipe here (as in scripts and CI): not one status byte, with or without
    /// `--json`, for `query`, `sync` and `watch`.
    static func noStatusWhenStandardErrorIsNotATerminal() async throws {
        let server = try Self.slowServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netclock-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = "127.0.0.1:\(server.port)"
        let commands = [
            ["query", target, "--interval", "0"],
            ["query", target, "--interval", "0", "--json"],
            ["sync", target, "--interval", "0", "--state", directory.appendingPathComponent("a.json").path],
            ["watch", target, "--interval", "0", "--count", "1"],
        ]
        // The four commands run at once: each only waits on the server's late replies, and what is
        // checked is what it wrote (and that its round was slow, which running beside others
        // cannot make it less).
        let outputs = try await withThrowingTaskGroup(of: ([String], CLIRunner.Output).self) { group in
            for arguments in commands {
                group.addTask {
                    // Awaited into a local first (Tools/check-split-tuples.sh).
                    let output = try await CLIRunner.run(arguments)
                    return (arguments, output)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outputs.count == commands.count)
        for (arguments, output) in outputs {
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            #expect(
                output.elapsed > .milliseconds(900), "\(arguments): the round is slow enough to show a status"
            )
            #expect(output.stderr.isEmpty, "\(arguments): stderr \(output.stderr.debugDescription)")
            #expect(
                !output.stdout.contains("\u{1B}") && !output.stdout.contains("\r"),
                "\(arguments): stdout \(output.stdout.debugDescription)")
        }
    }

    /// Under a pseudo-terminal (`script` from util-linux), the line appears, is redrawn in place at
    /// most about ten times a second, and is erased before the result is printed.
    static func statusLineAppearsAndIsErasedOnATerminal() async throws {
        guard CLIRunner.hasTool("script") else {
            print(
                "ProgressCLITests: no script(1) from util-linux for a pseudo-terminal: the terminal half skipped"
            )
            return
        }
        let server = try Self.slowServer()
        defer { server.stop() }
        // `sh` hands the binary and its arguments to `script -c` as one command line.
        let output = try await CLIRunner.run(
            ["query", "127.0.0.1:\(server.port)", "--interval", "0"],
            prefix: ["sh", "-c", #"exec script -qec "$0 $*" /dev/null"#], environment: ["TERM": "xterm"])
        #expect(output.status == 0, "\(output.stdout.debugDescription)")
        let clear = "\r\u{1B}[2K"
        let frames = output.stdout.components(separatedBy: clear)
        #expect(frames.count >= 3, "drawn at least once, then erased: \(output.stdout.debugDescription)")
        #expect(frames.count <= 20, "about ten frames a second over ~1.2 s")
        #expect(frames.dropFirst().dropLast().allSatisfy { $0.hasPrefix("querying 1 address: ") })
        // After the last erase comes exactly what a pipe would get (the terminal writes \r\n).
        let final = (frames.last ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        let lines = final.split(separator: "\n")
        #expect(lines.count == 2, "\(final.debugDescription)")
        #expect(lines.first?.hasPrefix("127.0.0.1:\(server.port)  offset +1.") == true)
        #expect(lines.last?.hasPrefix("time ") == true)
    }
}
