import Foundation
import LoopbackServers
import Testing

@testable import NetclockCLI
import WallClockReference

/// `netclock man`: the man page rendered from the option table, lint-clean for mandoc and readable
/// with `man -l`. A missing mandoc or man skips with the reason; with `NETCLOCK_REQUIRE_PEERS=1`
/// (CI) it fails.
@Suite(.wallClockReference)
struct ManPageTests {
    static let mandocMissing: Comment =
        "mandoc not installed (apt-get install -y mandoc): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"
    static let manMissing: Comment =
        "man not installed (apt-get install -y man-db): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    @Test func theCommandPrintsThePage() async throws {
        let output = try await CLIRunner.run(["man"])
        #expect(output.status == 0 && output.stderr.isEmpty)
        #expect(output.stdout == ManPage.text + "\n")
        let extra = try await CLIRunner.run(["man", "extra"])
        #expect(extra.status == 2 && extra.stdout.isEmpty)
    }

    @Test func everyCommandAndOptionHasAnEntry() {
        let lines = ManPage.text.split(separator: "\n").map(String.init)
        #expect(lines.first == ".Dd " + CLISpec.manualDate)
        #expect(lines.contains(".Dt NETCLOCK 1"))
        for command in CLISpec.commands {
            #expect(lines.contains { $0.hasPrefix(".It Cm \(command.name)") }, "\(command.name)")
        }
        for option in CLISpec.options {
            let flags = option.names.map { "Fl " + $0.dropFirst().replacingOccurrences(of: "-", with: "\\-") }
            #expect(
                lines.contains { $0.hasPrefix(".It " + flags.joined(separator: " , ")) }, "\(option.names)")
        }
        for line in lines where !line.hasPrefix(".") {
            #expect(line.utf8.count < 80 && line.last != " ", "\(line)")
        }
    }

    @Test(.enabled(if: InteropTool.runnable("mandoc"), mandocMissing))
    func mandocLintsItClean() throws {
        let mandoc = try InteropTool.require("mandoc", package: "mandoc")
        try withPage { page in
            let lint = try InteropTool.run(mandoc, ["-T", "lint", "-W", "all", page], timeout: .seconds(30))
            #expect(lint.status == 0 && lint.combined.isEmpty, "\(lint.combined)")
        }
    }

    @Test(.enabled(if: InteropTool.runnable("man"), manMissing))
    func manShowsIt() throws {
        let man = try InteropTool.require("man", package: "man-db")
        try withPage { page in
            let shown = try InteropTool.run(
                man, ["-l", page], timeout: .seconds(30),
                environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100", "LC_ALL": "C.UTF-8"])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("NETCLOCK(1)"))
            for name in CLISpec.options.flatMap(\.names) + CLISpec.commands.map(\.name) {
                #expect(shown.stdout.contains(name), "\(name) is not on the page")
            }
            #expect(!shown.stderr.contains("warning"), "\(shown.stderr)")
        }
    }

    /// Runs `body` with the page written to a file.
    private func withPage(_ body: (String) throws -> Void) throws {
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-man")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let page = directory + "/netclock.1"
        try (ManPage.text + "\n").write(toFile: page, atomically: true, encoding: .utf8)
        try body(page)
    }
}
