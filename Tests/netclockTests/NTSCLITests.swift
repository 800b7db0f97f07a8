import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// `netclock query --nts` in a child process against the loopback fake NTS server: an
/// authenticated result, and for hostile servers exit 1 with the reason on stderr and no time.
@Suite(
    .enabled(if: TestCertificates.runnable, "the openssl command is not installed"), .serialized,
    .wallClockReference)
struct NTSCLITests {
    static func run(_ server: FakeNTSServer, certificates: TestCertificates, json: Bool = false) async throws
        -> CLIRunner.Output
    {
        try await CLIRunner.run(
            [
                "query", "--nts", "--ca-file", certificates.caFile, "--interval", "0", "--samples", "2",
                "--timeout", "0.3",
            ] + (json ? ["--json"] : []) + ["localhost:\(server.kePort)"], timeout: 30)
    }

    static func server(_ behaviour: FakeNTSServer.Behaviour = .normal) throws -> (
        FakeNTSServer, TestCertificates
    ) {
        let certificates = try TestCertificates.require()
        let server = try FakeNTSServer(
            configuration: .init(
                certificates: certificates, offset: .milliseconds(-2250), behaviour: behaviour))
        return (server, certificates)
    }

    @Test func anAuthenticatedQueryPrintsTheNTSDetails() async throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let output = try await Self.run(server, certificates: certificates, json: true)
        #expect(output.status == 0, "\(output.stderr)")
        let json = try output.json()
        #expect(json["authenticated"] as? Bool == true)
        let offset = try #require(json["offset"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        // 1 ms beyond the bound for the boot-time-to-wall-clock pairing (see NTSPolicyTests).
        #expect(abs(offset - -2.25) <= bound + 0.001)
        let source = try #require((json["servers"] as? [[String: Any]])?.first)
        #expect(source["authenticated"] as? Bool == true)
        let nts = try #require(source["nts"] as? [String: Any])
        #expect(nts["aead"] as? Int == 15 && nts["cookies"] as? Int == 8 && nts["key_exchanges"] as? Int == 1)
        #expect(nts["ntp_server"] as? String == source["address"] as? String)
        let text = try await Self.run(server, certificates: certificates)
        #expect(text.status == 0)
        #expect(text.stdout.contains("[NTS, authenticated]") && text.stdout.contains(", authenticated)"))
    }

    /// `watch --nts` with `--every` shorter than etiquette allows says once, on stderr, what
    /// spacing is used and why: NTS requests are spaced like plain NTP ones, across rounds too.
    @Test func aWatchSaysWhenEtiquetteSpacesItsRounds() async throws {
        // Ahead, not behind like `server()`'s: the certificate made just before must be valid at
        // the server's time when this test is the first to make one.
        let certificates = try TestCertificates.require()
        let server = try FakeNTSServer(
            configuration: .init(certificates: certificates, offset: .milliseconds(500)))
        defer { server.stop() }
        // 0.1 s between requests (was 0.25 s): `--every` below `--samples` × `--interval` is all the
        // notice needs.
        let output = try await CLIRunner.run(
            [
                "watch", "--nts", "--ca-file", certificates.caFile, "--samples", "2", "--interval", "0.1",
                "--timeout", "0.3", "--every", "0.05", "--count", "2", "localhost:\(server.kePort)",
            ], timeout: 30)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(
            output.stderr.hasPrefix("netclock: rounds every 0.2 s, not every 0.05 s: "), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").count == 2, "\(output.stdout)")
        #expect(output.elapsed >= .milliseconds(300))
    }

    /// A hostile server and the words its reason must contain.
    struct Hostile: Sendable, CustomStringConvertible {
        var description: String
        var behaviour: FakeNTSServer.Behaviour
        var words: String
    }

    /// Each hostile server: exit 1 (never a signal), its reason on stderr, no time printed. All at
    /// once, each against its own server: a run only waits on its own server and timeouts.
    @Test func aHostileServerExitsOneWithItsReason() async throws {
        let certificates = try TestCertificates.require()
        let hostile = [
            Hostile(
                description: "bad authenticator", behaviour: .badAuthenticator,
                words: "authenticator does not verify"),
            Hostile(
                description: "downgrade", behaviour: .noExtensionFields, words: "without NTS extension fields"
            ),
            Hostile(
                description: "wrong identifier", behaviour: .wrongUniqueIdentifier,
                words: "Unique Identifier is not our request's"),
            Hostile(description: "no ALPN", behaviour: .keNoALPN, words: "without agreeing on ALPN ntske/1"),
            Hostile(description: "TLS 1.2", behaviour: .keTLS12Only, words: "no protocol version in common"),
            Hostile(
                description: "wrong name", behaviour: .wrongNameCertificate(certificates),
                words: "hostname mismatch"),
            Hostile(
                description: "error record", behaviour: .keErrorRecord(code: 1),
                words: "the server sent Error 1 (bad request)"),
        ]
        await concurrently(hostile) { hostile in
            let (server, _) = try Self.server(hostile.behaviour)
            defer { server.stop() }
            let output = try await Self.run(server, certificates: certificates)
            #expect(output.status == 1, "\(hostile): stdout: \(output.stdout)\nstderr: \(output.stderr)")
            #expect(output.stderr.contains(hostile.words), "\(hostile): \(output.stderr)")
            #expect(!output.stdout.contains("time 20"), "\(hostile): \(output.stdout)")
        }
    }

    /// A downgrade (issue 18): with `--nts-mode prefer`, an NTS server that does not answer and an
    /// HTTP URL that does, the HTTP time is unauthenticated: exit 1 with `downgrade` in the JSON,
    /// unless `--allow-downgrade` accepts it (exit 0, still marked). The two at once, each with its
    /// own servers.
    @Test func aDowngradeExitsOneUnlessAllowed() async {
        await concurrently([false, true]) { try await Self.downgrade(allowed: $0) }
    }

    static func downgrade(allowed: Bool) async throws {
        let (server, certificates) = try Self.server(.badAuthenticator)
        defer { server.stop() }
        let label = allowed ? "allowed" : "not allowed"
        let http = try HTTPTimeServer(
            configuration: HTTPTimeServer.Configuration(
                offset: .seconds(3), timestampHeaderName: "X-Server-Time-Ms"))
        defer { http.stop() }
        let output = try await CLIRunner.run(
            [
                "query", "--nts", "--nts-mode", "prefer", "--ca-file", certificates.caFile, "--interval", "0",
                "--samples", "1", "--timeout", "0.3", "--json", "--http", http.urlString, "--http-header",
                "X-Server-Time-Ms",
            ] + (allowed ? ["--allow-downgrade"] : []) + ["localhost:\(server.kePort)"], timeout: 30)
        let json = try output.json()
        #expect(json["downgrade"] as? String == "unauthenticated_only", "\(label): \(output.stdout)")
        #expect(json["authenticated"] as? Bool == false, "\(label)")
        if allowed {
            #expect(output.status == 0, "\(label): \(output.stderr)")
            let offset = try #require(json["offset"] as? Double)
            let bound = try #require(json["error_bound"] as? Double)
            // The header's 1 ms resolution is inside the bound; 1 ms more for the wall-clock pairing.
            #expect(abs(offset - 3) <= bound + 0.001, "\(label): \(offset) ± \(bound)")
        } else {
            #expect(output.status == 1, "\(label): \(output.stdout)")
            #expect(
                output.stderr.contains("only unauthenticated sources answered"), "\(label): \(output.stderr)")
            #expect(json["error"] is String, "\(label)")
        }
    }
}
