import SNTP
import TimeValues

/// A random delay: how long the loopback HTTP server "processes" a request.
package enum HTTPDelayDistribution: Hashable, Sendable {
    /// No delay.
    case none
    /// Always the same delay.
    case constant(Duration)
    /// Uniformly distributed between the two bounds (inclusive, in either order).
    case uniform(Duration, Duration)
    /// Exponentially distributed with the given mean, capped at `maximum`.
    case exponential(mean: Duration, maximum: Duration)
}

/// A way the loopback HTTP server can misbehave, to test clients' error handling.
package enum HTTPTimeServerMisbehaviour: Hashable, Sendable {
    /// Sends this text as the `Date` header instead of a real date.
    case malformedDate(String)
    /// Answers `500 Internal Server Error`.
    case internalServerError
    /// Writes the response head one byte at a time with this pause after each byte.
    case slowHeaders(pause: Duration)
    /// Writes the first `afterBytes` bytes of the response head (0: nothing at all), then closes the
    /// connection.
    ///
    /// Caution: with swift-corelibs-foundation as shipped in Swift 6.3 on Linux, closing after the
    /// complete status line (17 bytes or more of `HTTP/1.1 200 OK\r\n…`) makes URLSession stop the
    /// whole process ("Transfer completed, but there's no response.", swift-corelibs-foundation
    /// issue 5285, fixed upstream by pull request 5286). Fewer bytes give a clean transport error.
    /// NetworkClock's own client, which makes every request, handles every size. Over HTTPS the
    /// close is a clean one, with a TLS close_notify.
    case closeBeforeHeadersEnd(afterBytes: Int)
    /// Adds `Age: seconds`, as a cache would.
    case cachedAge(seconds: Int)
    /// Adds `Cache-Control: public, max-age=maxAge`: a cache between server and client may keep
    /// the answer and serve it again later.
    case cacheable(maxAge: Int)
    /// Answers `HEAD` with `405 Method Not Allowed` (and `Allow: GET`); `GET` works.
    case headNotAllowed
    /// Like ``headNotAllowed``, but `GET` is answered with a body of `bytes` bytes (announced in
    /// `Content-Length`) written 1 KiB at a time with `pause` after each KiB: a client that reads
    /// the body takes about `bytes / 1024 × pause`.
    case headNotAllowedTricklingBody(bytes: Int, pause: Duration)
    /// Adds filler header fields (`X-Filler-N: xxx…`, lines of up to 1,000 bytes) until the response
    /// head is about `bytes` bytes longer.
    case oversizedHeaders(bytes: Int)
    /// Sends an informational `103 Early Hints` head (with a `Link` field) before the real one.
    case earlyHints
    /// Sends this text instead of the status line.
    case statusLine(String)
    /// Answers every request with `301 Moved Permanently` and this `Location` (and the usual `Date`).
    case redirect(location: String)
    /// Writes the status line as one TLS record and the rest of the first `afterBytes` bytes of the
    /// head as another, then cuts the TCP connection without a TLS close_notify, as anyone on the
    /// path can (over plain HTTP: the same bytes, then the cut).
    case cutBetweenRecords(afterBytes: Int)
    /// Writes the first `afterBytes` bytes of the head, then a fatal TLS alert record in the clear
    /// (as an on-path attacker would inject it), then cuts the connection.
    case alertInsideHeaders(afterBytes: Int)
    /// HTTPS only: accepts the TCP connection, reads the ClientHello and never answers it.
    case stalledHandshake
}

extension HTTPTimeServer {
    /// What the server's clock says and how it answers. Every field can change while it runs; each
    /// request uses the configuration current when it arrived.
    package struct Configuration: Hashable, Sendable {
        /// The server's clock minus `CLOCK_REALTIME`: the true offset a client should measure.
        package var offset: Duration
        /// The delay between reading a request and reading the clock for the response.
        package var delayBeforeStamp: HTTPDelayDistribution
        /// The delay between reading the clock and sending the response.
        package var delayAfterStamp: HTTPDelayDistribution
        /// Whether a `Date` header is sent.
        package var sendsDate: Bool
        /// The form of the `Date` header.
        package var dateStyle: HTTPTimeServerDateStyle
        /// The name of an epoch timestamp header to send (e.g. `X-Server-Time-Ms`), if any.
        package var timestampHeaderName: String?
        /// The unit of the timestamp header's value: its resolution (1 ms by default; a whole
        /// number of milliseconds, or of seconds for a step of a second or more).
        package var timestampStep: Duration = .milliseconds(1)
        /// How the server's clock is written to ``timestampStep``.
        package var timestampRounding: TimestampRounding = .truncating
        /// A deliberate misbehaviour, if any.
        package var misbehaviour: HTTPTimeServerMisbehaviour?

        /// Creates a configuration: by default an exact clock, no delay, and an IMF-fixdate `Date`.
        package init(
            offset: Duration = .zero,
            delayBeforeStamp: HTTPDelayDistribution = .none,
            delayAfterStamp: HTTPDelayDistribution = .none,
            sendsDate: Bool = true,
            dateStyle: HTTPTimeServerDateStyle = .imfFixdate,
            timestampHeaderName: String? = nil,
            misbehaviour: HTTPTimeServerMisbehaviour? = nil
        ) {
            self.offset = offset
            self.delayBeforeStamp = delayBeforeStamp
            self.delayAfterStamp = delayAfterStamp
            self.sendsDate = sendsDate
            self.dateStyle = dateStyle
            self.timestampHeaderName = timestampHeaderName
            self.misbehaviour = misbehaviour
        }
    }
}

extension HTTPTimeServer {
    /// How a server writes its clock to a coarser unit: the three kinds a client meets.
    package enum TimestampRounding: Hashable, Sendable, CaseIterable {
        /// Down to the unit (what most clocks do).
        case truncating
        /// To the nearest unit.
        case rounding
        /// Up to the unit.
        case ceiling
    }
}
