import Foundation
import LoopbackServers
import LoopbackTestSupport
import NetClockTLS
import Testing
import WallClockReference

/// `netclock query --http-only --http https://localhost:PORT/ --ca-file CA` in a child process
/// against the loopback HTTPS server: the good server gives the time (exit 0); every hostile
/// behaviour, TLS ones included, exits 1 — never a signal — with its reason on stderr, within its
/// deadline. Each of these used to be able to stop the process through FoundationNetworking
/// (swift-corelibs-foundation issue 5285) when `https://` went through URLSession.
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct HTTPSCLITests {
    static let truth = Duration.milliseconds(2_300)
    /// Process start-up and a loaded 2-core machine, on top of each behaviour's own deadline.
    static let slack = Duration.seconds(3)

    static func startServer(
        _ configuration: HTTPTimeServer.Configuration, certificate: HTTPSTimeServerTLS.Certificate = .valid,
        maximumVersion: TLSProtocolVersion? = nil, ipv6: Bool = false
    ) throws -> HTTPTimeServer {
        let tls = HTTPSTimeServerTLS(
            try TestCertificates.require(), certificate: certificate, maximumVersion: maximumVersion)
        return try HTTPTimeServer(configuration: configuration, ipv6: ipv6, tls: tls)
    }

    /// Runs the query against `url`, trusting the test CA.
    static func query(_ url: String, _ extra: [String] = []) async throws -> CLIRunner.Output {
        let ca = try TestCertificates.require().caFile
        return try await CLIRunner.run(["query", "--http-only", "--http", url, "--ca-file", ca] + extra)
    }

    /// One case of ``goodAndHostileServersAtOnce()``.
    enum Case: Sendable, CustomStringConvertible {
        /// The good server, over TLS 1.3 or (`.tls12`) a TLS 1.2-only server.
        case good(maximumVersion: TLSProtocolVersion?)
        case hostile(Hostile)

        var description: String {
            switch self {
            case .good(let version): version == .tls12 ? "good server, TLS 1.2" : "good server, TLS 1.3"
            case .hostile(let hostile): hostile.name
            }
        }
    }

    /// The good server over TLS 1.3 and over TLS 1.2, and every hostile behaviour, all at once,
    /// each against its own server (a child each, mostly waiting): the two hostile cases that wait
    /// out the CLI's 3 s request timeout set the test's length, and the good cases' `Date`
    /// refinement (2–4 s of waits, each its own) runs beside them. Every message names its case.
    @Test func goodAndHostileServersAtOnce() async {
        let cases =
            [Case.good(maximumVersion: nil), .good(maximumVersion: .tls12)] + Self.hostile.map(Case.hostile)
        await concurrently(cases) { item in
            switch item {
            case .good(let version): try await Self.goodServerGivesTheTime(maximumVersion: version, "\(item)")
            case .hostile(let hostile): try await Self.hostileServerExitsOneWithItsReason(hostile)
            }
        }
    }

    /// The good server: exit 0, the refined `Date` time, with the truth inside the printed bound
    /// (a loaded machine's late wake-ups are in the 50 ms).
    static func goodServerGivesTheTime(maximumVersion: TLSProtocolVersion?, _ label: String) async throws {
        let server = try Self.startServer(.init(offset: Self.truth), maximumVersion: maximumVersion)
        defer { server.stop() }
        let url = server.url(hostName: "localhost")
        let output = try await Self.query(url, ["--json"])
        #expect(output.status == 0, "\(label): stderr: \(output.stderr)")
        let json = try output.json()
        #expect(json["source"] as? String == "http", "\(label)")
        let offset = try #require(json["offset"] as? Double, "\(label)")
        let bound = try #require(json["error_bound"] as? Double, "\(label)")
        #expect(abs(offset - 2.3) <= bound + 0.001, "\(label): offset \(offset) ± \(bound)")
        // The plain-HTTP test's bound (HTTPTimeSourceTests): refining stops at 15 ms; 50 ms allows a
        // loaded machine's late wake-ups.
        #expect(bound < 0.05, "\(label): bound \(bound)")
        let http = try #require((json["http"] as? [[String: Any]])?.first, "\(label)")
        #expect(http["status"] as? String == "selected", "\(label)")
        #expect(http["kind"] as? String == "date", "\(label)")
        #expect(!server.requests.isEmpty, "\(label)")
    }

    /// The millisecond timestamp header the next two tests ask for: one request, where what they
    /// check (the output's wording, the certificate's ::1) does not need the `Date` refinement.
    static let timestampHeader = "X-Server-Time-Ms"

    /// The text output names the HTTPS source.
    @Test func textOutputNamesTheHTTPSURL() async throws {
        let server = try Self.startServer(
            .init(offset: Self.truth, timestampHeaderName: Self.timestampHeader))
        defer { server.stop() }
        let url = server.url(hostName: "localhost")
        let output = try await Self.query(url, ["--http-header", Self.timestampHeader])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(
            output.stdout.split(separator: "\n").last?.contains("(http, \(url))") == true, "\(output.stdout)")
    }

    /// `https://[::1]:PORT/`: the certificate's ::1 address is checked.
    @Test(.enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func ipv6LiteralURL() async throws {
        let server = try Self.startServer(
            .init(offset: Self.truth, timestampHeaderName: Self.timestampHeader), ipv6: true)
        defer { server.stop() }
        #expect(server.urlString.hasPrefix("https://[::1]:"))
        let output = try await Self.query(
            server.urlString, ["--json", "--http-header", Self.timestampHeader])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let offset = try #require(try output.json()["offset"] as? Double)
        #expect(abs(offset - 2.3) < 0.05)
    }

    /// A hostile behaviour, the reason it must print, and how long it may take beyond start-up (the
    /// CLI's HTTP request timeout is 3 s).
    struct Hostile: Sendable, CustomStringConvertible {
        var name: String
        var misbehaviour: HTTPTimeServerMisbehaviour?
        var certificate: HTTPSTimeServerTLS.Certificate = .valid
        var reason: String
        var deadline: Duration = .zero
        var description: String { name }
    }

    static let hostile: [Hostile] = [
        Hostile(
            name: "close after the status line", misbehaviour: .closeBeforeHeadersEnd(afterBytes: 17),
            reason: "closed the connection after 17 bytes"),
        Hostile(
            name: "cut between TLS records", misbehaviour: .cutBetweenRecords(afterBytes: 40),
            reason: "without a TLS close_notify"),
        Hostile(
            name: "TLS alert inside the headers", misbehaviour: .alertInsideHeaders(afterBytes: 40),
            reason: "TLS connection_failed"),
        Hostile(name: "self-signed certificate", certificate: .selfSigned, reason: "self-signed certificate"),
        // Without trusted time the validity is checked against the server's own answer (bootstrap):
        // "the certificate of localhost has expired at the time its own answer gives".
        Hostile(name: "expired certificate", certificate: .expired, reason: "has expired"),
        Hostile(name: "wrong certificate name", certificate: .wrongName, reason: "hostname mismatch"),
        Hostile(
            name: "stalled handshake", misbehaviour: .stalledHandshake,
            reason: "TLS handshake with", deadline: .seconds(3)),
        Hostile(
            name: "slow headers", misbehaviour: .slowHeaders(pause: .milliseconds(20)),
            reason: "no complete response head", deadline: .seconds(3)),
        Hostile(
            name: "oversized head", misbehaviour: .oversizedHeaders(bytes: 100 * 1024),
            reason: "headers_too_large"),
        Hostile(
            name: "no Date header", misbehaviour: .malformedDate("yesterday"), reason: "malformed_date_header"
        ),
        Hostile(name: "HTTP 500", misbehaviour: .internalServerError, reason: "HTTP 500"),
    ]

    /// A hostile server: exit 1 with its reason, within its deadline plus the slack (which also
    /// covers the other cases running beside it).
    static func hostileServerExitsOneWithItsReason(_ hostile: Hostile) async throws {
        let server = try Self.startServer(
            .init(misbehaviour: hostile.misbehaviour), certificate: hostile.certificate)
        defer { server.stop() }
        let output = try await Self.query(server.url(hostName: "localhost"))
        // A signal would show as a status above 128 (Foundation's Process reports the signal
        // number for an uncaught signal, which is not 1 either).
        #expect(output.status == 1, "\(hostile): status \(output.status), stderr: \(output.stderr)")
        #expect(output.stderr.contains(hostile.reason), "\(hostile): stderr: \(output.stderr)")
        #expect(output.elapsed < hostile.deadline + Self.slack, "\(hostile): took \(output.elapsed)")
    }
}
