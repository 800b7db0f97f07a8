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
/// `chronyd -Q -t 10 'server H port P nts ntsport K iburst minpoll 0 maxpoll 0' 'ntstrustedcerts CA'
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
    struct Measurement {
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
            "server \(host) port \(server.ntpPort) nts ntsport \(server.ntsPort) iburst minpoll 0 maxpoll 0"
        // -u root: the client reads the CA file where the tests made it, as the server does.
        let output = try InteropTool.run(
            chronyd,
            ["-Q", "-u", "root", "-t", "\(timeLimit)", source, "ntstrustedcerts \(caFile)", "nosystemcert"],
            timeout: .seconds(Double(timeLimit + 5)))
        return Measurement(output: output, wrongBy: InteropTests.chronydWrongBy(in: output.combined))
    }

    /// chronyd -Q measured `server` over NTS, within the shared-clock tolerance, and the server counted
    /// an NTS-KE connection and authenticated NTP packets.
    static func expectAuthenticatedSync(
        _ server: ChronyNTSServer, host: String, label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        // The harness's readiness probes count as NTS-KE connections (and plain NTP packets): compare.
        let before = try server.serverStatistics(chronyc: chronyc)
        let measurement = try chronydQuery(server, host: host, caFile: server.caFile)
        let output = measurement.output
        #expect(!output.timedOut, sourceLocation: sourceLocation)
        #expect(output.status == 0, "chronyd -Q: \(output.combined)", sourceLocation: sourceLocation)
        let wrongBy = try #require(
            measurement.wrongBy,
            "no 'System clock wrong by' in:\n\(output.combined)\nserver log:\n\(server.log)",
            sourceLocation: sourceLocation)
        InteropTests.note("chronyd -Q over NTS (\(label)): System clock wrong by \(wrongBy) s")
        #expect(
            abs(wrongBy) < InteropTests.sharedClockTolerance, "chronyd -Q measured \(wrongBy) s",
            sourceLocation: sourceLocation)
        let stats = try server.serverStatistics(chronyc: chronyc)
        let counts = "before \(before), after \(stats)"
        #expect(
            ChronyNTSServer.increase(of: "NTS-KE connections accepted", from: before, to: stats) >= 1,
            "\(counts)",
            sourceLocation: sourceLocation)
        #expect(
            ChronyNTSServer.increase(of: "Authenticated NTP packets", from: before, to: stats) >= 1,
            "\(counts)",
            sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: runnable, toolsMissing), arguments: ["127.0.0.1", "localhost"])
    func chronydClientSyncsOverNTS(host: String) throws {
        let server = try ChronyNTSServer.start()
        let pid = server.pid
        let directory = server.directory
        do {
            defer { server.stop() }
            try Self.expectAuthenticatedSync(
                server, host: host,
                label: "\(host), NTS-KE port \(server.ntsPort), NTP port \(server.ntpPort)")
        }
        #expect(!server.isRunning, "chronyd stopped")
        let signalled = kill(pid, 0)
        let signalError = errno
        #expect(signalled == -1 && signalError == ESRCH, "no chronyd process \(pid) left")
        #expect(!FileManager.default.fileExists(atPath: directory), "temp dir removed")
    }

    @Test(
        .enabled(if: runnable, toolsMissing),
        .enabled(if: InteropTool.canBindOrRequired(host: "::1", port: 0), InteropTool.noIPv6Loopback))
    func chronydClientSyncsOverNTSOnIPv6() throws {
        let probe = InteropTool.bindProbe(host: "::1", port: 0)
        try #require(probe == 0, "cannot bind UDP on ::1 (errno \(probe)): no IPv6 loopback")
        let server = try ChronyNTSServer.start(ipv6: true)
        defer { server.stop() }
        #expect(InteropTool.tcpConnects(host: "::1", port: server.ntsPort), "NTS-KE listens on ::1")
        try Self.expectAuthenticatedSync(server, host: "::1", label: "::1")
    }

    /// `ntsntpserver 127.0.0.1`: the NTS-KE response names the NTP host (record type 6), and chrony's
    /// client queries it. Asked at ::1 when IPv6 loopback works, so the NTP host differs from the
    /// NTS-KE host; else at `localhost`.
    @Test(.enabled(if: runnable, toolsMissing))
    func chronydClientFollowsTheAdvertisedNTPServer() throws {
        let server = try ChronyNTSServer.start(ntpServer: "127.0.0.1")
        defer { server.stop() }
        let host = server.ipv6 ? "::1" : "localhost"
        try Self.expectAuthenticatedSync(
            server, host: host, label: "NTS-KE at \(host), ntsntpserver 127.0.0.1")
    }

    /// The control for the test above: an advertised NTP host where nothing listens (127.0.0.2 is
    /// loopback, but chronyd binds 127.0.0.1 only) gets no time, and no NTP packet reaches chronyd
    /// although its NTS-KE was asked: the client really queries the host the response names.
    @Test(.enabled(if: runnable, toolsMissing))
    func chronydClientGetsNothingFromAnAdvertisedHostWithoutServer() throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        let server = try ChronyNTSServer.start(ntpServer: "127.0.0.2")
        defer { server.stop() }
        // The harness's readiness probes count as NTS-KE connections and plain NTP packets: compare.
        let before = try server.serverStatistics(chronyc: chronyc)
        let measurement = try Self.chronydQuery(
            server, host: "127.0.0.1", caFile: server.caFile, timeLimit: 3)
        #expect(measurement.wrongBy == nil, "\(measurement.output.combined)")
        #expect(measurement.output.status != 0, "\(measurement.output.combined)")
        let stats = try server.serverStatistics(chronyc: chronyc)
        let counts = "before \(before), after \(stats)"
        #expect(
            ChronyNTSServer.increase(of: "NTS-KE connections accepted", from: before, to: stats) >= 1,
            "\(counts)")
        #expect(
            ChronyNTSServer.increase(of: "NTP packets received", from: before, to: stats) == 0, "\(counts)")
    }

    /// Trusting a CA that did not sign chronyd's certificate (the self-signed one) gets no time and
    /// sends chronyd no authenticated packet.
    @Test(.enabled(if: runnable, toolsMissing))
    func chronydClientRejectsAnUntrustedCertificate() throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        let server = try ChronyNTSServer.start()
        defer { server.stop() }
        let before = try server.serverStatistics(chronyc: chronyc)
        let measurement = try Self.chronydQuery(
            server, host: "127.0.0.1", caFile: server.certificates.selfSignedCertificate, timeLimit: 3)
        #expect(measurement.wrongBy == nil, "\(measurement.output.combined)")
        #expect(measurement.output.status != 0, "\(measurement.output.combined)")
        let stats = try server.serverStatistics(chronyc: chronyc)
        let counts = "before \(before), after \(stats)"
        // The client did connect (the CA file was read): the certificate is what it refused.
        #expect(
            ChronyNTSServer.increase(of: "NTS-KE connections accepted", from: before, to: stats) >= 1,
            "\(counts)")
        #expect(stats["Authenticated NTP packets"] == 0, "\(counts)")
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
