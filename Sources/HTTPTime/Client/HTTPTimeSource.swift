import Foundation
import NetClockPlatform
import NetClockTLS
import TimeBase

/// Measures the local clock's offset from an HTTP(S) server's clock, for networks where NTP's UDP
/// port 123 is blocked.
///
/// Each measurement sends `HEAD` (falling back to `GET` when the server answers 405 or 501) with
/// `Cache-Control: no-cache`, and reads the server's time from either
/// - a configured timestamp header (milliseconds or finer): the offset comes from the round-trip
///   midpoint, and a few samples are intersected; or
/// - the standard `Date` header (1-second resolution): the first response gives a 1-second-wide
///   interval, and further requests are timed to reach the server just as its clock crosses a whole
///   second (as htpdate does), each halving the interval, until it is narrow enough or the request
///   budget or deadline is spent.
///
/// Only the response head is read — never a body — and the receive instant is taken when the head
/// is complete. 2xx and 3xx responses are evidence; redirects are not followed (a 3xx response
/// carries the server's clock like any other).
///
/// Transport: NetworkClock's own HTTP/1.1 client (``HTTPHeadClient``), one connection per request
/// (`Connection: close`), opened before the planned send instant so that connecting does not delay
/// the send — for `https://` URLs with the TLS handshake done then too (TLS 1.2 or 1.3 through the
/// package's OpenSSL layer, the certificate verified against ``trustRoots`` and the URL's host,
/// SNI sent). It handles IPv6 literals (`https://[::1]:8443/`), limits the response head to
/// ``Configuration/maximumResponseHeadBytes``, and turns every network and TLS failure, however
/// hostile (a connection cut between TLS records, an alert, a refused certificate, a stalled
/// handshake), into an ``HTTPTimeError`` within the request's timeout. URLSession is not used:
/// on Linux with Swift 6.3 it stops the whole process when the connection ends inside the
/// response head (swift-corelibs-foundation issue 5285).
///
/// Send and receive instants come from the monotonic clock, mapped to wall time through one
/// (wall, monotonic) pair read per measurement. A response served from a cache (`Age` > 0) is
/// refused. The result's bound is sound: the true offset lies inside it if the server's clock is
/// right.
package struct HTTPTimeSource: Sendable {
    /// How measurements are made.
    package let configuration: Configuration
    private let monotonicClock: any MonotonicClockSource
    private let wallClock: any WallClockSource
    /// Whom `https://` servers' certificates must chain to.
    package let trustRoots: TLSClientConfiguration.TrustRoots
    /// Against which time `https://` servers' certificates are checked (the sync decides).
    package var certificateTime: CertificateTime = .wallClock
    /// Where the exchanges run (blocking, one pool thread each).
    private let pool: BlockingPool

    /// Creates a source; the clocks and the pool are injectable for tests.
    package init(
        configuration: Configuration = Configuration(),
        trustRoots: TLSClientConfiguration.TrustRoots = .system,
        monotonicClock: any MonotonicClockSource = BootTimeClock(),
        wallClock: any WallClockSource = SystemWallClock(), pool: BlockingPool = .shared
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
        let transport = HTTPTransport(target: try HTTPRequestTarget(url: url), client: client)
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
