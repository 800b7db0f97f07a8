#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import NetClockTLS
import TimeValues

/// Measures the local clock's offset from an HTTP(S) server's clock, for networks where NTP's UDP
/// port 123 is blocked: `HEAD` requests through ``HTTPHeadClient``, timed on the monotonic clock,
/// read either a configured timestamp header or the one-second `Date` header, refined as htpdate does.
///
/// The bound is sound if the server's clock is right; every failure is an ``HTTPTimeError``
/// within the request's timeout. What a response proves: the HowTheErrorBoundWorks article, "HTTP
/// evidence"; why no URLSession: the DesignDecisions article, "Why its own TLS client".
package struct HTTPTimeClient: Sendable {
    /// How measurements are made.
    package let configuration: Configuration
    private let monotonicClock: any MonotonicClock
    private let wallClock: any WallClock
    /// Whom `https://` servers' certificates must chain to.
    package let trustRoots: TLSClientConfiguration.TrustRoots
    /// Against which time `https://` servers' certificates are checked (the sync decides).
    package var certificateTime: CertificateTime = .wallClock
    /// Where the exchanges run (blocking, one pool thread each).
    private let pool: BlockingPool

    /// Creates a client; the clocks and the pool are injectable for tests.
    package init(
        configuration: Configuration = Configuration(),
        trustRoots: TLSClientConfiguration.TrustRoots = .system,
        monotonicClock: any MonotonicClock = BootTimeClock(),
        wallClock: any WallClock = SystemWallClock(), pool: BlockingPool = .shared
    ) {
        self.configuration = configuration
        self.trustRoots = trustRoots
        self.monotonicClock = monotonicClock
        self.wallClock = wallClock
        self.pool = pool
    }

    /// Measures the offset against `url` (`http` or `https`).
    ///
    /// - Throws: ``HTTPTimeError`` naming the failure; no partial measurement is returned, except
    ///   that running into the deadline while *refining* ends the measurement with what it has.
    package func measure(_ url: URL) async throws(HTTPTimeError) -> HTTPTimeMeasurement {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            let shown = scheme.isEmpty ? "no scheme" : "scheme '\(scheme)'"
            throw HTTPTimeError(.unsupportedScheme, "\(url.absoluteString) has \(shown); use http or https")
        }
        var client = HTTPHeadClient(
            maximumHeadBytes: configuration.maximumResponseHeadBytes, clock: monotonicClock,
            trustRoots: trustRoots, pool: pool)
        client.certificateTime = certificateTime
        var target = try HTTPRequestTarget(url: url)
        switch configuration.proxy.choice(host: target.host, isSecure: target.isSecure) {
        case .direct: break
        case .proxy(let proxy): target.proxy = proxy
        case .unusable(let error): throw HTTPTimeError(.unsupportedProxy, error.description)
        }
        let transport = HTTPTransport(target: target, client: client)
        let mapping = TimeMapping(wall: wallClock, monotonic: monotonicClock)
        let start = mapping.monotonic
        var run = HTTPMeasurementRun(
            url: url, configuration: configuration, transport: transport, clock: monotonicClock,
            mapping: mapping, deadline: start + configuration.deadline)
        var measurement = try await run.execute()
        if scheme == "https" { measurement.certificateTime = certificateTime }
        return measurement
    }
}
