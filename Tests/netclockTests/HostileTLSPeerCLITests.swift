import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// The `netclock` binary against the hostile TLS peer (``HostileTLSPeer``), the two commands of
/// issue 18: `query --nts` and a `watch --http-only --http https://…` exit 1 with a reason each
/// round, inside their timeouts, and use under 1 s of CPU (the child's own, from `wait4`; before
/// the fix, two close_notify records made the watch use 21 s of CPU in 16 s). One case each, the
/// two close_notify of that defect: every fault at every stage is HostileTLSPeerTests', against
/// the clients themselves; here only the CLI's mapping of their errors to its output and status.
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct HostileTLSPeerCLITests {
    /// The bound the issue sets for a whole run.
    static let cpuLimit = Duration.seconds(1)
    /// Process start-up and a loaded 2-core machine, beyond a command's own timeouts.
    static let slack = Duration.seconds(3)
    /// `watch`: two rounds, 0.5 s apart; each HTTP request may take 3 s (the CLI's default).
    static let rounds = 2
    static let every = 0.5
    /// The longest a watch may take: the request timeouts and the pause between the rounds.
    static let watchLimit = Duration.seconds(3) * rounds + .milliseconds(500) * (rounds - 1)
    /// The longest an NTS query may take: one key exchange timeout (5 s).
    static let queryLimit = Duration.seconds(5)

    /// What one child run showed.
    struct Run: Sendable {
        var status: Int32
        var output: String
        var wall: Duration
        var cpu: Duration
    }

    /// Runs `netclock` with the arguments `command` gives for a peer playing `script` to its end
    /// (killed well after `limit`), on a Dispatch thread.
    static func run(
        _ script: HostileTLSPeerScript, _ application: HostileTLSPeerScript.Application, limit: Duration,
        command: (HostileTLSPeer, TestCertificates) -> [String]
    ) async throws -> Run {
        let certificates = try TestCertificates.require()
        let peer = try HostileTLSPeer(script, application: application, certificates: certificates)
        defer { peer.stop() }
        let arguments = command(peer, certificates)
        return try await BlockingCases.onThread {
            try runBlocking(arguments, limit: limit + slack + .seconds(10))
        }
    }

    private static func runBlocking(_ arguments: [String], limit: Duration) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("output").path
        let clock = ContinuousClock()
        let start = clock.now
        let child = try SpawnedProcess(
            CLIRunner.url(of: "netclock").path, arguments, stdout: log, stderr: log)
        if !child.waitForExit(within: limit) { child.terminate() }
        let wall = clock.now - start
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Run(status: child.exitStatus ?? -1, output: output, wall: wall, cpu: child.cpuTime ?? .zero)
    }

    /// Checks one run: status 1, its reason, its time and CPU.
    static func check(_ run: Run, title: String, limit: Duration, reason: (Run) -> Bool) {
        print("\(title) | status \(run.status) | wall \(run.wall) | cpu \(run.cpu)")
        #expect(run.status == 1, "\(title): status \(run.status)\n\(run.output)")
        #expect(reason(run), "\(title): no reason given\n\(run.output)")
        #expect(run.wall < limit + slack, "\(title): took \(run.wall)")
        #expect(run.cpu < cpuLimit, "\(title): used \(run.cpu) of CPU in \(run.wall)")
    }

    /// Both commands against two close_notify records, side by side: each child's CPU is its own
    /// (`wait4`) and each mostly waits on its peer, so running them at once changes nothing
    /// asserted.
    @Test func ntsQueryAndHTTPSWatchAgainstTwoCloseNotifiesExitOneQuicklyAndCheaply() async throws {
        async let nts = Self.run(
            HostileTLSPeerScript(.twoCloseNotifies, at: .insteadOfServerHello), .ntske, limit: Self.queryLimit
        ) { peer, certificates in
            ["query", "--nts", peer.hostAndPort, "--ca-file", certificates.caFile]
        }
        async let https = Self.run(
            HostileTLSPeerScript(.twoCloseNotifies, at: .afterHandshake), .http, limit: Self.watchLimit
        ) { peer, certificates in
            [
                "watch", "--http-only", "--http", peer.url, "--ca-file", certificates.caFile, "--count",
                "\(Self.rounds)", "--every", "\(Self.every)",
            ]
        }
        // Awaited one at a time (Swift 6.3's split tuple results: Tools/check-split-tuples.sh).
        let ntsRun = try await nts
        let httpsRun = try await https
        Self.check(ntsRun, title: "netclock query --nts", limit: Self.queryLimit) { run in
            run.output.contains("netclock: no usable time source") && run.output.contains("NTS-KE with")
                && run.output.contains("close_notify")
        }
        Self.check(httpsRun, title: "netclock watch --http-only", limit: Self.watchLimit) { run in
            run.output.components(separatedBy: "no time: ").count == Self.rounds + 1
        }
    }
}
