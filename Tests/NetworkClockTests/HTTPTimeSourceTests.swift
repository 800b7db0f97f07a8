import Foundation
@testable import HTTPTime
import LoopbackServers
import LoopbackTestSupport
import NetClockPlatform
import SNTP
import Testing
import TimeValues
@testable import NetworkClock
import WallClockReference

/// `http://` time end to end against the in-process loopback HTTP server: the wiring of the
/// measurement (HTTPMeasurementCore, whose decisions HTTPTimeTests prove on the manual clock) to
/// the client's own transport, and name resolution. No other network traffic.
@Suite(.serialized, .wallClockReference) struct HTTPTimeSourceTests {
    static let truth = Duration.milliseconds(2_300)
    static let jitter = HTTPDelayDistribution.uniform(.zero, .milliseconds(20))

    private func startServer(_ configuration: HTTPTimeServer.Configuration, seed: UInt64 = 1)
        throws -> (HTTPTimeServer, URL)
    {
        let server = try HTTPTimeServer(configuration: configuration, seed: seed)
        return (server, try #require(URL(string: server.urlString)))
    }

    /// A refined `Date` measurement of two requests: the second is sent at the instant the core
    /// planned (the server's next second boundary, at least the spacing after the first), the
    /// interval holds the truth, and every request is a `HEAD` asking caches not to answer.
    @Test func aRefinedDateMeasurementHoldsTheTruth() async throws {
        let (server, url) = try startServer(.init(offset: Self.truth, delayBeforeStamp: Self.jitter))
        defer { server.stop() }
        let source = HTTPTimeClient(configuration: .init(maximumRequests: 2, targetErrorBound: .zero))
        let measurement = try await source.measure(url)
        #expect(measurement.kind == .dateHeader)
        #expect(measurement.offsets.contains(Self.truth), "\(measurement.offsets) misses the truth")
        #expect(measurement.requests.count == 2)
        let (first, second) = (measurement.requests[0], measurement.requests[1])
        #expect(second.sent >= first.received + source.configuration.minimumSpacing)
        #expect(second.sent - first.received < .seconds(1) + .milliseconds(250), "\(measurement.requests)")
        #expect(measurement.errorBound < .milliseconds(510), "\(measurement.errorBound)")
        #expect(measurement.trueTime == measurement.localTime + measurement.offset)
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.method == "HEAD" })
        #expect(server.requests.allSatisfy { $0.header("Cache-Control") == "no-cache" })
        #expect(server.requests.allSatisfy { $0.header("Pragma") == "no-cache" })
    }

    /// The one rule for timestamps whose rounding is unknown (`time ± resolution`), for the
    /// fallback's timestamp headers and an app's ingested responses alike, against a server of each
    /// kind writing whole seconds: truncating, rounding and ceiling. (`[t, t + 1 s]`, which assumes
    /// truncation, misses the truth of the rounding and the ceiling server's.)
    @Test(arguments: HTTPTimeServer.TimestampRounding.allCases)
    func aTimestampHoldsTheTruthWhateverTheServersRounding(_ rounding: HTTPTimeServer.TimestampRounding)
        async throws
    {
        var configuration = HTTPTimeServer.Configuration(offset: Self.truth, timestampHeaderName: "X-Time-S")
        configuration.timestampStep = .seconds(1)
        configuration.timestampRounding = rounding
        let (server, url) = try startServer(configuration)
        defer { server.stop() }
        let source = HTTPTimeClient(
            configuration: .init(timestampHeader: "X-Time-S", timestampUnit: .seconds, maximumRequests: 1))
        let measurement = try await source.measure(url)
        #expect(measurement.offsets.contains(Self.truth), "\(rounding): \(measurement.offsets)")
        #expect(measurement.errorBound <= .seconds(1) + .milliseconds(100), "\(rounding)")

        // The same response fed to a clock by an app.
        let request = try #require(measurement.requests.last)
        let text: String = try #require(request.headerValue)
        let value = try #require(Int64(text))
        let clock = NetworkClock(configuration: .init(servers: []))
        try clock.ingest(
            serverTime: UnixTime(seconds: value), requestSent: request.sent,
            responseReceived: request.received,
            resolution: .seconds(1))
        let comparison = try #require(clock.systemClockOffset())
        #expect(
            abs(comparison.offset - Self.truth) <= comparison.errorBound, "\(rounding): \(comparison)")
    }

    @Test func unsupportedSchemeAndRefusedConnection() async throws {
        let ftp = try #require(URL(string: "ftp://127.0.0.1/"))
        #expect(await Self.failure(of: HTTPTimeClient(), ftp)?.code == .unsupportedScheme)
        let (server, url) = try startServer(.init())
        server.stop()
        let error = await Self.failure(of: HTTPTimeClient(), url)
        #expect(error?.code == .transport)
        #expect(error?.reason.contains("cannot connect to") == true, "\(String(describing: error))")
    }

    /// `localhost` works whatever it resolves to here: 127.0.0.1 only, or ::1 and 127.0.0.1 (the
    /// client then tries each address in turn, and ::1 refuses). The server listens on 127.0.0.1.
    @Test func localhostNameWorks() async throws {
        let (server, _) = try startServer(.init(offset: Self.truth))
        defer { server.stop() }
        let url = try #require(URL(string: "http://localhost:\(server.port)/"))
        let measurement = try await HTTPTimeClient(configuration: .init(maximumRequests: 1)).measure(url)
        #expect(measurement.offsets.contains(Self.truth))
        #expect(server.requests.count == 1)
    }

    /// Where `localhost` resolves to ::1 as well as 127.0.0.1, a server listening on ::1 only is
    /// reached by that name.
    @Test(.enabled(if: LoopbackEnvironment.localhostReachesIPv6, localhostWithoutIPv6))
    func localhostNameReachesAnIPv6OnlyServer() async throws {
        let server = try HTTPTimeServer(configuration: .init(offset: Self.truth), ipv6: true)
        defer { server.stop() }
        let url = try #require(URL(string: "http://localhost:\(server.port)/"))
        let measurement = try await HTTPTimeClient(configuration: .init(maximumRequests: 1)).measure(url)
        #expect(measurement.offsets.contains(Self.truth))
        #expect(server.requests.count == 1)
    }

    private static func failure(of source: HTTPTimeClient, _ url: URL) async -> HTTPTimeError? {
        do {
            let measurement = try await source.measure(url)
            Issue.record("expected an error, got offset \(measurement.offset)")
            return nil
        } catch {
            return error
        }
    }
}
