import Foundation
@testable import HTTPTime
import LoopbackServers
import NetClockTLS
import SNTP
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hostile HTTPS servers on loopback — TLS misbehaviours (a cut between records, an injected
/// alert, refused certificates, a stalled handshake) and HTTP ones over TLS — each ending in its
/// typed ``HTTPTimeError`` within its deadline (the child-process view is HTTPSCLITests).
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct HTTPSHostileServerTests {
    /// A TLS-level or HTTP-level misbehaviour, what error it must give, and text its reason holds.
    struct Hostile: Sendable, CustomTestStringConvertible {
        var name: String
        var misbehaviour: HTTPTimeServerMisbehaviour?
        var certificate: HTTPSTimeServerTLS.Certificate = .valid
        var code: HTTPTimeError.Code
        var reason: String
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = [
        Hostile(
            name: "close_notify right after the status line",
            misbehaviour: .closeBeforeHeadersEnd(afterBytes: 17), code: .transport,
            reason: "closed the connection after 17 bytes"),
        Hostile(
            name: "cut between TLS records", misbehaviour: .cutBetweenRecords(afterBytes: 40), code: .tls,
            reason: "without a TLS close_notify"),
        Hostile(
            name: "alert inside the headers", misbehaviour: .alertInsideHeaders(afterBytes: 40), code: .tls,
            reason: "TLS connection_failed"),
        Hostile(
            name: "self-signed certificate", certificate: .selfSigned, code: .certificateRejected,
            reason: "self-signed certificate"),
        Hostile(
            name: "expired certificate", certificate: .expired, code: .certificateRejected,
            reason: "certificate has expired"),
        Hostile(
            name: "certificate for another name", certificate: .wrongName, code: .certificateRejected,
            reason: "hostname mismatch"),
        Hostile(
            name: "oversized head", misbehaviour: .oversizedHeaders(bytes: 100 * 1024),
            code: .headersTooLarge,
            reason: "16384"),
        Hostile(
            name: "malformed status line", misbehaviour: .statusLine("HTTP/1.1 2OO OK"),
            code: .malformedResponse, reason: "malformed"),
    ]

    /// Each ends at once (long before the 10 s request timeout) with its typed error and reason.
    @Test(arguments: hostile)
    func hostileServerGivesATypedError(_ hostile: Hostile) async throws {
        let (server, url) = try HTTPSClientTests.startServer(
            .init(misbehaviour: hostile.misbehaviour), certificate: hostile.certificate)
        defer { server.stop() }
        let patient = try HTTPSClientTests.source(.init(requestTimeout: .seconds(10), deadline: .seconds(20)))
        let (error, elapsed) = await HTTPSClientTests.failure(of: patient, url)
        #expect(error?.code == hostile.code, "\(String(describing: error))")
        #expect(error?.reason.contains(hostile.reason) == true, "\(String(describing: error))")
        #expect(error?.requests.count == 1)
        // Not waiting for the timeout: under half of it (on an idle machine tens of milliseconds;
        // 2 s seen beside the other test shards on a loaded one, a TLS handshake included).
        #expect(elapsed < .seconds(5), "took \(elapsed)")
    }

    /// A server that accepts the connection and never answers the ClientHello: a timeout when the
    /// request timeout is due, not later.
    @Test func stalledHandshakeTimesOutOnTime() async throws {
        let (server, url) = try HTTPSClientTests.startServer(.init(misbehaviour: .stalledHandshake))
        defer { server.stop() }
        let source = try HTTPSClientTests.source(.init(requestTimeout: .milliseconds(500)))
        let (error, elapsed) = await HTTPSClientTests.failure(of: source, url)
        #expect(error?.code == .timeout, "\(String(describing: error))")
        #expect(error?.reason.contains("TLS handshake") == true, "\(String(describing: error))")
        #expect(
            elapsed >= .milliseconds(500) && elapsed < .milliseconds(500) + HTTPSClientTests.slack,
            "took \(elapsed)")
    }

    /// Cancelling the task during a stalled handshake ends the measurement within a poll slice.
    @Test func cancellingAStalledHandshakeEndsIt() async throws {
        let (server, url) = try HTTPSClientTests.startServer(.init(misbehaviour: .stalledHandshake))
        defer { server.stop() }
        let source = try HTTPSClientTests.source(.init(requestTimeout: .seconds(10), deadline: .seconds(20)))
        let start = ContinuousClock.now
        let task = Task { await HTTPSClientTests.failure(of: source, url).0 }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let error = await task.value
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(ContinuousClock.now - start < .milliseconds(300) + HTTPSClientTests.slack)
    }

    /// Headers trickling in one TLS record per byte never complete within the timeout.
    @Test func slowHeadersTimeOutOnTime() async throws {
        let (server, url) = try HTTPSClientTests.startServer(
            .init(misbehaviour: .slowHeaders(pause: .milliseconds(20))))
        defer { server.stop() }
        let (error, elapsed) = await HTTPSClientTests.failure(
            of: try HTTPSClientTests.source(.init(requestTimeout: .milliseconds(400))), url)
        #expect(error?.code == .timeout, "\(String(describing: error))")
        #expect(
            elapsed >= .milliseconds(400) && elapsed < .milliseconds(400) + HTTPSClientTests.slack,
            "took \(elapsed)")
    }
}
