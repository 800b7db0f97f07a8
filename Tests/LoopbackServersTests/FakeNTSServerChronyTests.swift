#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LoopbackServers
import LoopbackTestSupport
import Testing
import WallClockReference

/// Finding chronyd, the real NTS client, and deciding whether its test runs.
enum ChronyPeer {
    /// Where `chronyd` is: the `PATH`, then the sbin directories a non-login `PATH` may lack.
    static let chronydPath = TestExecutables.path(of: "chronyd")

    /// Whether to run: chronyd and openssl are installed, or CI requires every peer (then a missing
    /// one fails the test in ``chronyd()``).
    static let runnable =
        TestCertificates.toolsRequired || (chronydPath != nil && TestCertificates.opensslPath != nil)

    /// chronyd's path, or a test failure when CI requires it.
    static func chronyd() throws -> String {
        try #require(
            chronydPath,
            "chronyd is not installed and NETCLOCK_REQUIRE_PEERS=1 requires it (apt-get install -y chrony)")
    }

}

/// The fake NTS server against a real, independent NTS client: `chronyd -Q` (chrony 4.3) does the
/// NTS-KE, follows the Port Negotiation record, authenticates our replies and prints the offset it
/// measured (TESTING.md, NTS item 3).
@Suite(
    .enabled(
        if: ChronyPeer.runnable,
        "chronyd or openssl is not installed (apt-get install -y chrony openssl); NETCLOCK_REQUIRE_PEERS=1 makes this fail"
    ),
    .serialized, .wallClockReference)
struct FakeNTSServerChronyTests {
    /// The test CA copied to a fresh directory (0755) as a 0644 file, so chronyd can read it after
    /// dropping to the `_chrony` user, whatever the umask made of the original.
    static func readableCA(_ certificates: TestCertificates) throws -> (directory: String, file: String) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netclock-nts-chrony-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let file = directory + "/ca.pem"
        try FileManager.default.copyItem(atPath: certificates.caFile, toPath: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        return (directory, file)
    }

    /// Runs `chronyd -Q` against `server` (its name in the `server` directive is its address,
    /// `127.0.0.1` or `::1`, which the certificate covers; no `port`, so only the Port Negotiation record leads chronyd to the
    /// NTP port) and returns what it printed. Bounded: `-t 10` ends chronyd, and after 20 s it is
    /// killed by its pid. `seconds` replaces the 10 of `-t`.
    ///
    /// `iburst` sends the first requests a quarter of the poll interval apart: 62.5 ms with minpoll −2
    /// (minpoll 0 made it 250 ms and a run 0.4 s longer; chronyd sends the same requests either way),
    /// more than the longest loopback round trip seen under load (55 ms). A reply held back by
    /// `replyDelay` gets minpoll −1 (125 ms apart), so it still arrives before the next request.
    static func runChronyd(
        against server: FakeNTSServer, caFile: String, directory: String, seconds: Int = 10
    ) throws -> String {
        let poll = server.configuration.replyDelay > .zero ? -1 : -2
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ChronyPeer.chronyd())
        process.arguments = [
            "-Q", "-t", "\(seconds)",
            "server \(server.host) nts ntsport \(server.kePort) iburst minpoll \(poll) maxpoll \(poll)",
            "ntstrustedcerts \(caFile)", "nosystemcert",
        ]
        let outputPath = directory + "/chronyd.out"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while process.isRunning && clock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// The X of chronyd's `System clock wrong by X seconds`, if it printed one.
    static func measuredOffset(in output: String) -> Double? {
        guard let range = output.range(of: "System clock wrong by ") else { return nil }
        let rest = output[range.upperBound...]
        return Double(rest.prefix { !$0.isWhitespace })
    }

    /// A server `offset` ahead whose replies are held `replyDelay` on the way back.
    struct OffsetCase: Sendable, CustomStringConvertible {
        var offset: Duration
        var replyDelay: Duration
        var description: String { "offset \(offset), reply delay \(replyDelay)" }
    }

    /// Each case has its own server and its own chronyd and only waits on them, so the cases run at
    /// once; every message names its case.
    @Test("chronyd -Q measures the configured offset through NTS (minus half a one-way reply delay)")
    func chronydMeasuresOffset() async throws {
        let certificates = try TestCertificates.require()
        _ = try ChronyPeer.chronyd()
        let cases = [
            OffsetCase(offset: .milliseconds(2_500), replyDelay: .zero),
            OffsetCase(offset: .milliseconds(-1_250), replyDelay: .milliseconds(40)),
        ]
        let runs = try await BlockingCases.run(cases, lanes: cases.count) { item in
            var configuration = FakeNTSServer.Configuration(certificates: certificates, offset: item.offset)
            configuration.replyDelay = item.replyDelay
            return try Self.measurementRun(configuration)
        }
        #expect(runs.count == cases.count)
        for (item, run) in runs { try Self.expectMeasurement(run, case: "\(item)") }
    }

    @Test(
        "chronyd -Q measures the offset through NTS over IPv6 loopback",
        .enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func chronydOverIPv6() throws {
        let certificates = try TestCertificates.require()
        let configuration = FakeNTSServer.Configuration(
            certificates: certificates, host: "::1", offset: .milliseconds(700))
        try Self.expectMeasurement(try Self.measurementRun(configuration), case: "::1")
    }

    /// What chronyd printed against a server with `configuration`, and what the server counted.
    struct MeasurementRun: Sendable {
        var configuration: FakeNTSServer.Configuration
        var host: String
        var output: String
        var statistics: FakeNTSServer.Statistics
    }

    /// Runs chronyd against a server with `configuration` (blocking).
    static func measurementRun(_ configuration: FakeNTSServer.Configuration) throws -> MeasurementRun {
        let certificates = try TestCertificates.require()
        let server = try FakeNTSServer(configuration: configuration)
        defer { server.stop() }
        let ca = try Self.readableCA(certificates)
        defer { try? FileManager.default.removeItem(atPath: ca.directory) }
        let output = try Self.runChronyd(against: server, caFile: ca.file, directory: ca.directory)
        return MeasurementRun(
            configuration: configuration, host: server.host, output: output, statistics: server.statistics)
    }

    /// Checks the offset chronyd measured in `run`; messages name the case.
    static func expectMeasurement(_ run: MeasurementRun, case name: String) throws {
        let configuration = run.configuration
        let output = run.output
        let measured = try #require(Self.measuredOffset(in: output), "\(name): chronyd printed:\n\(output)")
        // chronyd reports how far the system clock is behind the server: the server's offset. The
        // reply held `replyDelay` on its way back makes the path asymmetric by that much, which
        // NTP's symmetric estimate halves.
        let (seconds, attoseconds) = (configuration.offset - configuration.replyDelay / 2).components
        let expected = Double(seconds) + Double(attoseconds) * 1e-18
        #expect(
            abs(measured - expected) <= 0.010,
            "\(name): chronyd measured \(measured) s, expected \(expected) s:\n\(output)")
        let statistics = run.statistics
        #expect(statistics.keHandshakes >= 1, "\(name)")
        #expect(statistics.authenticatedRequests >= 1, "\(name)")
        #expect(statistics.rejectedTotal == 0, "\(name)")
        #expect(statistics.lastRequestedServerName == nil, "\(name)")
        print(
            "chronyd measured \(measured) s (configured offset \(configuration.offset), reply delay \(configuration.replyDelay), host \(run.host)); server: \(statistics.keHandshakes) NTS-KE, \(statistics.authenticatedRequests) authenticated requests"
        )
    }

    /// The hostile behaviours chronyd must refuse, by the name each case's messages carry.
    static let hostileKinds = [
        "bad authenticator", "wrong UID", "missing UID", "downgrade", "NAK", "no new cookies",
        "oversized field", "truncated field", "wrong name", "expired", "self-signed", "TLS 1.2",
        "no ALPN",
        "no cookies", "critical unknown record", "error record", "oversized response",
        "truncated records",
    ]

    /// Each case only waits on chronyd (its polls, one a second, until it gives up on the source)
    /// and no assertion is about time or CPU, so the cases run at once, each against its own
    /// server and its own chronyd; every message names its case.
    @Test(
        "chronyd -Q refuses each hostile behaviour (no offset printed), though it did talk to the server"
    )
    func chronydRefuses() async throws {
        let certificates = try TestCertificates.require()
        _ = try ChronyPeer.chronyd()
        let runs = try await BlockingCases.run(Self.hostileKinds, lanes: Self.hostileKinds.count) { kind in
            try Self.refusalRun(kind, certificates: certificates)
        }
        for (kind, (behaviour, output, statistics)) in runs {
            Self.expectRefusal(kind, behaviour: behaviour, output: output, statistics: statistics)
        }
    }

    /// The server behaviour a case of ``chronydRefuses()`` names.
    static func behaviour(_ kind: String, certificates: TestCertificates) -> FakeNTSServer.Behaviour {
        switch kind {
        case "bad authenticator": .badAuthenticator
        case "wrong UID": .wrongUniqueIdentifier
        case "missing UID": .missingUniqueIdentifier
        case "downgrade": .noExtensionFields
        case "NAK": .nak
        case "no new cookies": .noNewCookies
        case "oversized field": .oversizedExtensionField
        case "truncated field": .truncatedExtensionField
        case "wrong name": .wrongNameCertificate(certificates)
        case "expired": .expiredCertificate(certificates)
        case "self-signed": .selfSignedCertificate(certificates)
        case "TLS 1.2": .keTLS12Only
        case "no ALPN": .keNoALPN
        case "no cookies": .keNoCookies
        case "critical unknown record": .keCriticalUnknownRecord
        case "error record": .keErrorRecord(code: 2)
        case "oversized response": .keOversizedResponse
        default: .keTruncatedRecords
        }
    }

    /// One case of ``chronydRefuses()`` (blocking, on its own thread): chronyd against a server
    /// playing `kind`; what chronyd printed and what the server counted.
    static func refusalRun(_ kind: String, certificates: TestCertificates) throws -> (
        FakeNTSServer.Behaviour, String, FakeNTSServer.Statistics
    ) {
        let behaviour = Self.behaviour(kind, certificates: certificates)
        let server = try FakeNTSServer(
            configuration: .init(certificates: certificates, offset: .seconds(3), behaviour: behaviour))
        defer { server.stop() }
        let ca = try Self.readableCA(certificates)
        defer { try? FileManager.default.removeItem(atPath: ca.directory) }
        // Up to eight seconds: chronyd polls four times a second (minpoll −2), so it sends several
        // requests, and gives up on the source by itself well before.
        let output = try Self.runChronyd(
            against: server, caFile: ca.file, directory: ca.directory, seconds: 8)
        return (behaviour, output, server.statistics)
    }

    /// The checks of one case of ``chronydRefuses()``, each message naming it.
    static func expectRefusal(
        _ kind: String, behaviour: FakeNTSServer.Behaviour, output: String,
        statistics: FakeNTSServer.Statistics
    ) {
        #expect(Self.measuredOffset(in: output) == nil, "chronyd accepted \(kind):\n\(output)")
        switch behaviour {
        case .keCertificate, .keTLS12Only:
            #expect(statistics.keHandshakes == 0, "\(kind): \(statistics.keHandshakes) handshakes")
            #expect(statistics.keFailures >= 1, "\(kind): \(statistics.keFailures) failures")
            #expect(
                statistics.authenticatedRequests == 0,
                "\(kind): \(statistics.authenticatedRequests) authenticated requests")
        case .keNoALPN, .keNoCookies, .keCriticalUnknownRecord, .keErrorRecord, .keOversizedResponse,
            .keTruncatedRecords:
            // The handshake succeeds; the NTS-KE content is refused, so no NTP request follows.
            #expect(statistics.keHandshakes >= 1, "\(kind): \(statistics.keHandshakes) handshakes")
            #expect(
                statistics.authenticatedRequests == 0,
                "\(kind): \(statistics.authenticatedRequests) authenticated requests")
            #expect(statistics.rejectedTotal == 0, "\(kind): \(statistics.rejectedTotal) rejected")
        default:
            #expect(statistics.keResponses >= 1, "\(kind): \(statistics.keResponses) NTS-KE responses")
            #expect(statistics.authenticatedRequests >= 1, "\(kind): \(output)")
        }
        print(
            "chronyd refused \(kind): \(statistics.keHandshakes) handshakes, \(statistics.keFailures) failed, \(statistics.authenticatedRequests) authenticated requests; it said: \(output.split(separator: "\n").suffix(2).joined(separator: " | "))"
        )
    }
}
