import Foundation
@testable import HTTPTime
import LoopbackServers
import LoopbackTestSupport
import NetClockTLS
import SNTP
import Testing
import TimeBase

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

    // MARK: Accuracy

    /// The refined `Date` measurement over HTTPS meets the plain-HTTP test's bounds (within 50 ms
    /// of the truth, a bound under 50 ms, the truth inside the interval: HTTPTimeSourceTests), with
    /// TLS 1.3 and with a TLS 1.2-only server. The handshake happens before the planned send
    /// instant, so it does not widen the round trip the bound is made of.
    @Test(arguments: [nil, TLSProtocolVersion.tls12])
    func refinedDateHeaderMatchesPlainHTTP(maximumVersion: TLSProtocolVersion?) async throws {
        let (server, url) = try Self.startServer(
            .init(offset: Self.truth, delayBeforeStamp: Self.jitter), maximumVersion: maximumVersion)
        defer { server.stop() }
        let source = try Self.source()
        let results = await withTaskGroup(of: Result<HTTPTimeMeasurement, HTTPTimeError>.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do throws(HTTPTimeError) { return .success(try await source.measure(url)) } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var total = 0
        for result in results {
            let measurement = try result.get()
            #expect(measurement.kind == .dateHeader)
            #expect(measurement.offsets.contains(Self.truth), "\(measurement.interval) misses the truth")
            let error: Duration = measurement.offset - Self.truth
            #expect(error < .milliseconds(50) && error > .milliseconds(-50), "offset \(measurement.offset)")
            #expect(measurement.errorBound < .milliseconds(50), "bound \(measurement.errorBound)")
            #expect(measurement.requests.count <= 8)
            total += measurement.requests.count
        }
        #expect(server.requests.count == total)
        #expect(
            server.requests.allSatisfy {
                $0.method == "HEAD" && $0.header("Host") == "localhost:\(server.port)"
            })
    }

    /// The same clock and delays served over plain HTTP and over HTTPS, measured alternately: every
    /// HTTPS interval holds the truth and the median HTTPS bound is the plain one's within 10 ms.
    /// Why 10 ms: both stop refining once the bound is at most 15 ms (or after 8 requests); what is
    /// left of a bound is about half the round trip of the request that halved it last, and here
    /// the round trip is the server's 0–20 ms uniform delay (loopback adds well under 1 ms, and the
    /// TLS handshake is done before the send instant). So two medians of the same process differ by
    /// at most half that 20 ms range.
    @Test func httpsBoundIsPlainHTTPs() async throws {
        let configuration = HTTPTimeServer.Configuration(offset: Self.truth, delayBeforeStamp: Self.jitter)
        let (secure, secureURL) = try Self.startServer(configuration)
        defer { secure.stop() }
        let plain = try HTTPTimeServer(configuration: configuration, seed: 1)
        defer { plain.stop() }
        let plainURL = try #require(URL(string: plain.urlString))
        let source = try Self.source()
        // Four of each at once, interleaved, so both schemes meet the same machine load.
        let results = await withTaskGroup(of: (Bool, Result<HTTPTimeMeasurement, HTTPTimeError>).self) {
            group in
            for _ in 0..<4 {
                for (isSecure, url) in [(true, secureURL), (false, plainURL)] {
                    group.addTask {
                        // Awaited before the tuple is built (Swift 6.3's split tuple results: see
                        // TimeSyncEngine.measureAll).
                        let outcome: Result<HTTPTimeMeasurement, HTTPTimeError>
                        do throws(HTTPTimeError) {
                            outcome = .success(try await source.measure(url))
                        } catch {
                            outcome = .failure(error)
                        }
                        return (isSecure, outcome)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var bounds: (plain: [Duration], secure: [Duration]) = ([], [])
        for (isSecure, result) in results {
            let measurement = try result.get()
            #expect(measurement.offsets.contains(Self.truth), "\(measurement.interval) misses the truth")
            if isSecure {
                bounds.secure.append(measurement.errorBound)
            } else {
                bounds.plain.append(measurement.errorBound)
            }
        }
        let median = { (values: [Duration]) in values.sorted()[values.count / 2] }
        #expect(
            median(bounds.secure) <= median(bounds.plain) + .milliseconds(10),
            "HTTPS bounds \(bounds.secure), HTTP bounds \(bounds.plain)")
    }

    /// With a millisecond header the HTTPS bound is the plain-HTTP one: round trip / 2 + 1 ms.
    @Test func millisecondHeaderIsWithin5ms() async throws {
        let (server, url) = try Self.startServer(
            .init(offset: Self.truth, delayBeforeStamp: Self.jitter, timestampHeaderName: "X-Server-Time-Ms"))
        defer { server.stop() }
        let measurement = try await Self.source(.init(timestampHeader: "X-Server-Time-Ms")).measure(url)
        #expect(measurement.offsets.contains(Self.truth))
        let error: Duration = measurement.offset - Self.truth
        #expect(error < .milliseconds(5) && error > .milliseconds(-5), "offset \(measurement.offset)")
        #expect(measurement.errorBound < .milliseconds(5), "bound \(measurement.errorBound)")
    }

    /// An IPv6 literal: the certificate's IP address ::1 is checked (no SNI is sent for an address).
    @Test(.enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func ipv6LiteralURLWorks() async throws {
        let (server, url) = try Self.startServer(.init(offset: Self.truth), ipv6: true)
        defer { server.stop() }
        #expect(url.absoluteString.hasPrefix("https://[::1]:"))
        let measurement = try await Self.source(.init(maximumRequests: 3)).measure(url)
        #expect(measurement.offsets.contains(Self.truth))
        #expect(server.requests.count == 3)
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
