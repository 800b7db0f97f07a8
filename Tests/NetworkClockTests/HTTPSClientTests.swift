import Foundation
@testable import HTTPTime
import LoopbackServers
import LoopbackTestSupport
import NetClockTLS
import SNTP
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `https://` time through NetworkClock's own TLS client against the loopback HTTPS server (the
/// test CA's certificate for `localhost`, 127.0.0.1 and ::1): the same accuracy as plain HTTP, and
/// whom it trusts. Hostile servers are in HTTPSHostileServerTests; the helpers here serve both.
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct HTTPSClientTests {
    static let truth = Duration.milliseconds(2_300)
    static let jitter = HTTPDelayDistribution.uniform(.zero, .milliseconds(20))
    /// Allowance for thread wake-ups on a loaded 2-core machine, as in PlainHTTPClientTests.
    static let slack = Duration.seconds(1)

    /// A source trusting the test CA only, with `configuration`.
    static func source(_ configuration: HTTPTimeClient.Configuration = .init()) throws -> HTTPTimeClient {
        HTTPTimeClient(
            configuration: configuration, trustRoots: .caFile(try TestCertificates.require().caFile))
    }

    /// An HTTPS server presenting `certificate`; its URL names `localhost` (as the certificate does).
    static func startServer(
        _ configuration: HTTPTimeServer.Configuration, certificate: HTTPSTimeServerTLS.Certificate = .valid,
        maximumVersion: TLSProtocolVersion? = nil, ipv6: Bool = false, seed: UInt64 = 1
    ) throws -> (HTTPTimeServer, URL) {
        let tls = HTTPSTimeServerTLS(
            try TestCertificates.require(), certificate: certificate, maximumVersion: maximumVersion)
        let server = try HTTPTimeServer(configuration: configuration, ipv6: ipv6, seed: seed, tls: tls)
        let url = try #require(URL(string: ipv6 ? server.urlString : server.url(hostName: "localhost")))
        return (server, url)
    }

    static func failure(of source: HTTPTimeClient, _ url: URL) async -> (HTTPTimeError?, Duration) {
        let start = ContinuousClock.now
        do {
            let measurement = try await source.measure(url)
            Issue.record("expected an error, got offset \(measurement.offset)")
            return (nil, ContinuousClock.now - start)
        } catch {
            return (error, ContinuousClock.now - start)
        }
    }

    // MARK: Wiring

    /// A refined `Date` measurement over HTTPS, with TLS 1.3 and with a TLS 1.2-only server, both
    /// at once: the interval holds the truth, and no request's round trip holds the connection's
    /// set-up (the handshake is done before a request's planned send instant; the server's own
    /// delay is 0–20 ms, so 100 ms is far below what the set-up costs on a loaded machine and above
    /// its scheduling). How far refining narrows the bound is HTTPMeasurementCoreTests'.
    @Test func aRefinedDateMeasurementOverTLS13AndTLS12() async throws {
        async let modern = Self.refined(maximumVersion: nil)
        async let tls12 = Self.refined(maximumVersion: .tls12)
        // Awaited one at a time (Swift 6.3's split tuple results: Tools/check-split-tuples.sh).
        let first = try await modern
        let second = try await tls12
        for (name, (measurement, requests, port)) in [("TLS 1.3", first), ("TLS 1.2", second)] {
            #expect(measurement.kind == .dateHeader)
            #expect(
                measurement.offsets.contains(Self.truth), "\(name): \(measurement.interval) misses the truth")
            #expect(measurement.requests.count == 3, "\(name)")
            #expect(measurement.errorBound < .milliseconds(300), "\(name): bound \(measurement.errorBound)")
            for request in measurement.requests {
                #expect(request.roundTrip < .milliseconds(100), "\(name): round trip \(request.roundTrip)")
            }
            #expect(requests.count == 3, "\(name)")
            #expect(requests.allSatisfy { $0.method == "HEAD" && $0.header("Host") == "localhost:\(port)" })
        }
    }

    /// One measurement of three requests against a fresh server with `maximumVersion`; the
    /// measurement and the requests the server saw (with its port).
    private static func refined(maximumVersion: TLSProtocolVersion?) async throws
        -> (HTTPTimeMeasurement, [HTTPTimeServerRequest], UInt16)
    {
        let (server, url) = try Self.startServer(
            .init(offset: Self.truth, delayBeforeStamp: Self.jitter), maximumVersion: maximumVersion)
        defer { server.stop() }
        let measurement = try await Self.source(.init(maximumRequests: 3, targetErrorBound: .zero)).measure(
            url)
        return (measurement, server.requests, server.port)
    }

    /// With a millisecond header the HTTPS bound is the plain-HTTP one: half the shortest round
    /// trip plus 1 ms, as a millisecond stamp may be truncated or rounded (the drift over a few
    /// round trips adds far less than the 100 µs allowed), however slow the machine: this suite
    /// also runs under ThreadSanitizer, where a TLS round trip takes several milliseconds.
    @Test func millisecondHeaderBoundIsHalfTheShortestRoundTrip() async throws {
        let (server, url) = try Self.startServer(
            .init(offset: Self.truth, delayBeforeStamp: Self.jitter, timestampHeaderName: "X-Server-Time-Ms"))
        defer { server.stop() }
        let measurement = try await Self.source(
            .init(timestampHeader: "X-Server-Time-Ms", timestampSamples: 3)
        )
        .measure(url)
        #expect(measurement.offsets.contains(Self.truth), "offset \(measurement.offset)")
        let shortest = try #require(measurement.requests.map { $0.received - $0.sent }.min())
        #expect(
            measurement.errorBound <= shortest / 2 + .microseconds(1_100),
            "bound \(measurement.errorBound), shortest round trip \(shortest)")
    }

    /// An IPv6 literal: the certificate's IP address ::1 is checked (no SNI is sent for an address).
    @Test(.enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func ipv6LiteralURLWorks() async throws {
        let (server, url) = try Self.startServer(.init(offset: Self.truth), ipv6: true)
        defer { server.stop() }
        #expect(url.absoluteString.hasPrefix("https://[::1]:"))
        let measurement = try await Self.source(.init(maximumRequests: 1)).measure(url)
        #expect(measurement.offsets.contains(Self.truth))
        #expect(server.requests.count == 1)
    }

    // MARK: Trust

    /// The test CA is not in the system trust store: the default source refuses the certificate.
    @Test func systemTrustStoreRefusesTheTestCA() async throws {
        let (server, url) = try Self.startServer(.init())
        defer { server.stop() }
        let (error, _) = await Self.failure(of: HTTPTimeClient(configuration: .init(maximumRequests: 1)), url)
        #expect(error?.code == .certificateRejected, "\(String(describing: error))")
        #expect(
            error?.reason.contains("unable to get local issuer certificate") == true,
            "\(String(describing: error))")
    }

    /// A CA file that does not exist is a TLS setup error naming the file.
    @Test func missingCAFileIsATLSError() async throws {
        let (server, url) = try Self.startServer(.init())
        defer { server.stop() }
        let source = HTTPTimeClient(trustRoots: .caFile("/nonexistent/ca.pem"))
        let (error, _) = await Self.failure(of: source, url)
        #expect(error?.code == .tls, "\(String(describing: error))")
        #expect(error?.reason.contains("/nonexistent/ca.pem") == true, "\(String(describing: error))")
    }
}
