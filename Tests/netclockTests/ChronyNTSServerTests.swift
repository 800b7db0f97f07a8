#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// ``ChronyNTSServer`` proven with an NTS client nobody here wrote: chrony's own (`chronyd -Q` with
/// an `nts` source). Loopback only.
///
/// `chronyd -Q -t 10 'server H port P nts ntsport K iburst minpoll -2 maxpoll -2' 'ntstrustedcerts CA'
/// 'nosystemcert'` does NTS-KE with the server, then authenticated NTP, and prints `System clock wrong
/// by X seconds (ignored)`; directives on the command line make it read no config file. Both ends
/// read the same clock, so |X| < 1 ms (as InteropTests' shared-clock tolerance). chronyd's
/// `serverstats` counters show, from the server's side, that the exchange really was NTS.
///
/// Negative controls keep the positive ones honest: a CA that did not sign the server's certificate
/// gets no time, and an NTS-KE response naming a host where no NTP server listens gets no time
/// either (the client follows the advertised NTP server, record type 6).
@Suite(.serialized, .wallClockReference)
struct ChronyNTSServerTests {
    static let toolsMissing = ChronyNTSServer.toolsMissing

    static var runnable: Bool { ChronyNTSServer.runnable }

    /// What one `chronyd -Q` run against the server printed.
    struct Measurement: Sendable {
        var output: InteropTool.Output
        /// X of "System clock wrong by X seconds", if printed.
        var wrongBy: Double?
    }

    /// Runs chrony's one-shot NTS client against `server`, asking NTS-KE at `host`, trusting `caFile`.
    static func chronydQuery(
        _ server: ChronyNTSServer, host: String, caFile: String, timeLimit: Int = 10
    ) throws -> Measurement {
        let chronyd = try InteropTool.require("chronyd", package: "chrony")
        let source =
            "server \(host) port \(server.ntpPort) nts ntsport \(server.ntsPort) \(InteropTests.chronydPolling)"
        // -u root: the client reads the CA file where the tests made it, as the server does.
        let output = try InteropTool.run(
            chronyd,
            ["-Q", "-u", "root", "-t", "\(timeLimit)", source, "ntstrustedcerts \(caFile)", "nosystemcert"],
            timeout: .seconds(Double(timeLimit + 5)))
        return Measurement(output: output, wrongBy: InteropTests.chronydWrongBy(in: output.combined))
    }

    /// A chronyd NTS server set up one way, and what chrony's client must get from it.
    struct ClientCase: Sendable, CustomStringConvertible {
        /// What the client must get.
        enum Outcome: Sendable {
            /// Authenticated time within the shared-clock tolerance, counted by the server as NTS.
            case authenticatedTime
            /// No time, and not one NTP packet reaches chronyd, though its NTS-KE was asked.
            case noTimeAndNoNTPPacket
            /// No time, and no authenticated NTP packet, though the client did connect.
            case noTimeAndNoAuthenticatedPacket
        }

        var description: String
        /// Where the client asks for keys.
        var host: String
        /// `ntsntpserver HOST`: the NTP host the NTS-KE response names.
        var ntpServer: String?
        /// Whether chronyd also listens on ::1.
        var ipv6 = LoopbackEnvironment.ipv6LoopbackAvailable
        /// Whether the client trusts the self-signed certificate, which signed no server here,
        /// instead of the CA.
        var trustsTheWrongCA = false
        /// The client's `-t`.
        var timeLimit = 10
        var outcome: Outcome
    }

    /// What one case saw: the client's output, the server's counters around it (the harness's
    /// readiness probes count as NTS-KE connections and plain NTP packets: compare), and what was
    /// left of the server once stopped.
    struct ClientRun: Sendable {
        var measurement: Measurement
        var before: [String: Int]
        var after: [String: Int]
        var serverLog: String
        var ntsPort: UInt16
        var ntpPort: UInt16
        /// The addresses where NTS-KE accepted a TCP connection before the client ran.
        var keListening: [String]
        /// After ``ChronyNTSServer/stop()``: whether the process still ran, `kill(pid, 0)` and its
        /// errno, and whether the directory still existed.
        var stillRunning: Bool
        var signalled: Int32
        var signalError: Int32
        var directoryLeft: Bool
    }

    /// One case, blocking: starts its server, runs chrony's client against it, stops it.
    static func clientRun(_ item: ClientCase, chronyc: String) throws -> ClientRun {
        let server = try ChronyNTSServer.start(ntpServer: item.ntpServer, ipv6: item.ipv6)
        let caFile = item.trustsTheWrongCA ? server.certificates.selfSignedCertificate : server.caFile
        var run: ClientRun
        do {
            defer { server.stop() }
            let keListening = server.hosts.filter {
                LoopbackPorts.tcpConnects(host: $0, port: server.ntsPort)
            }
            let before = try server.serverStatistics(chronyc: chronyc)
            let measurement = try chronydQuery(
                server, host: item.host, caFile: caFile, timeLimit: item.timeLimit)
            run = ClientRun(
                measurement: measurement, before: before,
                after: try server.serverStatistics(chronyc: chronyc),
                serverLog: server.log, ntsPort: server.ntsPort, ntpPort: server.ntpPort,
                keListening: keListening, stillRunning: true, signalled: 0, signalError: 0,
                directoryLeft: true)
        }
        run.stillRunning = server.isRunning
        run.signalled = kill(server.pid, 0)
        run.signalError = errno
        run.directoryLeft = FileManager.default.fileExists(atPath: server.directory)
        return run
    }

    /// The checks of one case, each message naming it.
    static func expect(_ item: ClientCase, _ run: ClientRun) throws {
        let output = run.measurement.output
        let counts = "\(item): before \(run.before), after \(run.after)"
        func increase(_ name: String) -> Int {
            ChronyNTSServer.increase(of: name, from: run.before, to: run.after)
        }
        // The client did connect (the CA file was read, the NTS-KE server asked) in every case.
        #expect(increase("NTS-KE connections accepted") >= 1, "\(counts)")
        switch item.outcome {
        case .authenticatedTime:
            #expect(!output.timedOut, "\(item)")
            #expect(output.status == 0, "\(item): chronyd -Q: \(output.combined)")
            let wrongBy = try #require(
                run.measurement.wrongBy,
                "\(item): no 'System clock wrong by' in:\n\(output.combined)\nserver log:\n\(run.serverLog)")
            InteropTests.note(
                "chronyd -Q over NTS (\(item), NTS-KE port \(run.ntsPort), NTP port \(run.ntpPort)): System clock wrong by \(wrongBy) s"
            )
            #expect(
                abs(wrongBy) < InteropTests.clientTolerance, "\(item): chronyd -Q measured \(wrongBy) s")
            #expect(increase("Authenticated NTP packets") >= 1, "\(counts)")
        case .noTimeAndNoNTPPacket:
            #expect(run.measurement.wrongBy == nil, "\(item): \(output.combined)")
            #expect(output.status != 0, "\(item): \(output.combined)")
            #expect(increase("NTP packets received") == 0, "\(counts)")
        case .noTimeAndNoAuthenticatedPacket:
            #expect(run.measurement.wrongBy == nil, "\(item): \(output.combined)")
            #expect(output.status != 0, "\(item): \(output.combined)")
            #expect(run.after["Authenticated NTP packets"] == 0, "\(counts)")
        }
        #expect(!run.stillRunning, "\(item): chronyd stopped")
        #expect(run.signalled == -1 && run.signalError == ESRCH, "\(item): no chronyd process left")
        #expect(!run.directoryLeft, "\(item): temp dir removed")
    }

    /// The client against each server set-up. Each case has its own chronyd and only waits on it and
    /// on its client, so the cases run at once; every message names its case.
    ///
    /// The positive cases: by address, by name, and following the NTP server the NTS-KE response
    /// names (`ntsntpserver 127.0.0.1`, record type 6; asked at ::1 when IPv6 loopback works, so
    /// the NTP host differs from the NTS-KE host, else at `localhost`). Their controls: an advertised
    /// host where nothing listens (127.0.0.2 is loopback, but chronyd binds 127.0.0.1 only) gets no
    /// time, and no NTP packet reaches chronyd: the client really queries the host the response
    /// names; and trusting a CA that did not sign chronyd's certificate gets no time and sends
    /// chronyd no authenticated packet.
    static let clientCases: [ClientCase] = [
        ClientCase(description: "127.0.0.1", host: "127.0.0.1", outcome: .authenticatedTime),
        ClientCase(description: "localhost", host: "localhost", outcome: .authenticatedTime),
        ClientCase(
            description: "advertised NTP server",
            host: LoopbackEnvironment.ipv6LoopbackAvailable ? "::1" : "localhost", ntpServer: "127.0.0.1",
            outcome: .authenticatedTime),
        ClientCase(
            description: "advertised host without server", host: "127.0.0.1", ntpServer: "127.0.0.2",
            timeLimit: 3, outcome: .noTimeAndNoNTPPacket),
        ClientCase(
            description: "untrusted certificate", host: "127.0.0.1", trustsTheWrongCA: true, timeLimit: 3,
            outcome: .noTimeAndNoAuthenticatedPacket),
    ]

    @Test(.enabled(if: runnable, toolsMissing))
    func chronydClientSyncsOverNTSOnlyWithTheRightServer() async throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        _ = try InteropTool.require("chronyd", package: "chrony")
        _ = try TestCertificates.require()
        await concurrently(Self.clientCases) { item in
            let run = try await BlockingCases.onThread { try Self.clientRun(item, chronyc: chronyc) }
            try Self.expect(item, run)
        }
    }

    @Test(
        .enabled(if: runnable, toolsMissing),
        .enabled(if: InteropTool.canBindOrRequired(host: "::1", port: 0), InteropTool.noIPv6Loopback))
    func chronydClientSyncsOverNTSOnIPv6() async throws {
        let probe = LoopbackPorts.bindProbe(host: "::1", port: 0)
        try #require(probe == 0, "cannot bind UDP on ::1 (errno \(probe)): no IPv6 loopback")
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        _ = try InteropTool.require("chronyd", package: "chrony")
        _ = try TestCertificates.require()
        let item = ClientCase(description: "::1", host: "::1", ipv6: true, outcome: .authenticatedTime)
        let run = try await BlockingCases.onThread { try Self.clientRun(item, chronyc: chronyc) }
        #expect(run.keListening.contains("::1"), "NTS-KE listens on ::1")
        try Self.expect(item, run)
    }

    @Test func parsesServerStatistics() {
        let text = """
            NTP packets received       : 12
            NTS-KE connections accepted: 1
            Authenticated NTP packets  : 9
            NTP timestamp span         : 0
            Something else             : n/a
            """
        let stats = ChronyNTSServer.parseServerStatistics(text)
        #expect(stats["NTP packets received"] == 12)
        #expect(stats["NTS-KE connections accepted"] == 1)
        #expect(stats["Authenticated NTP packets"] == 9)
        #expect(stats["NTP timestamp span"] == 0)
        #expect(stats["Something else"] == nil)
    }
}
