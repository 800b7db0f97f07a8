import Foundation
import SNTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
/// Transports:
/// - `http://` URLs use NetworkClock's own HTTP/1.1 client over a plain TCP socket (one connection
///   per request, `Connection: close`, opened before the planned send instant so that connecting
///   does not delay the send). It handles IPv6 literals (`http://[::1]:8080/`), limits the response
///   head to ``Configuration/maximumResponseHeadBytes``, and turns every network failure, however
///   hostile, into an ``HTTPTimeError``.
/// - `https://` URLs use a fresh ephemeral `URLSession` with no cache (TLS needs it); it is told to
///   stop right after the response head. On Linux with Swift 6.3, FoundationNetworking stops the
///   whole process when the connection ends inside the response head, after the status line
///   (swift-corelibs-foundation issue 5285, fixed upstream by pull request 5286) — measured over
///   TLS too, both with `close_notify` and with a bare TCP FIN. So a hostile `https://` server, or
///   an on-path attacker who cuts the TCP connection between two TLS records of a response head,
///   can end the process. The trade-off until the toolchain has that fix: over `http://` an on-path
///   attacker can forge the server's time but cannot crash the process; over `https://` the time
///   is authenticated but the process can be crashed.
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
    /// For tests: send `http://` URLs through URLSession too, to exercise that path on loopback
    /// (which has no TLS certificates for `https://`).
    var usesURLSessionForPlainHTTP = false

    /// Creates a source; the clocks are injectable for tests.
    package init(
        configuration: Configuration = Configuration(),
        monotonicClock: any MonotonicClockSource = BootTimeClock(),
        wallClock: any WallClockSource = SystemWallClock()
    ) {
        self.configuration = configuration
        self.monotonicClock = monotonicClock
        self.wallClock = wallClock
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
        let transport: HTTPTransport
        if scheme == "http" && !usesURLSessionForPlainHTTP {
            let client = PlainHTTPClient(
                maximumHeadBytes: configuration.maximumResponseHeadBytes, clock: monotonicClock)
            transport = .plain(try PlainHTTPRequest(url: url), client)
        } else {
            transport = .urlSession(url, URLSessionTransport(configuration: configuration))
        }
        defer { transport.invalidate() }
        let start = monotonicClock.now()
        let mapping = TimeMapping(wall: wallClock.now(), monotonic: start)
        var run = HTTPMeasurementRun(
            url: url, configuration: configuration, transport: transport, clock: monotonicClock,
            mapping: mapping, deadline: start + configuration.deadline)
        return try await run.execute()
    }

    /// An ephemeral configuration with no cache, no cookies and the configured timeouts.
    static func sessionConfiguration(_ configuration: Configuration) -> URLSessionConfiguration {
        let session = URLSessionConfiguration.ephemeral
        session.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        session.urlCache = nil
        session.httpCookieStorage = nil
        session.httpShouldSetCookies = false
        session.timeoutIntervalForRequest = foundationTimeout(configuration.requestTimeout)
        session.timeoutIntervalForResource = foundationTimeout(configuration.deadline)
        return session
    }

    /// A timeout for URLSession: whole seconds, rounded up, plus one, at least 2 s. Our own timer
    /// enforces the exact timeout; URLSession's is only a backstop, because swift-corelibs-foundation
    /// truncates sub-second timeouts to zero and then reports `NSURLErrorTimedOut` at once.
    static func foundationTimeout(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        let wholeSeconds = seconds + (attoseconds > 0 ? 1 : 0)
        return TimeInterval(max(2, min(wholeSeconds, 86_400) + 1))
    }
}
