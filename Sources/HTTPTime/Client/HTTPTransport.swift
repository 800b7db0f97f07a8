import NetClockTLS
import TimeValues

/// How one measurement's requests travel: ``HTTPHeadClient`` to the URL's host and port (or
/// through the target's proxy: a `CONNECT` tunnel for `https://`, absolute form for `http://`),
/// over plain TCP for `http://` and over TLS for `https://`, one connection per request.
struct HTTPTransport: Sendable {
    /// Where the requests go.
    let target: HTTPRequestTarget
    /// The client that makes them.
    let client: HTTPHeadClient

    /// Performs one request, planned at `now`, sent at `sendAt` (nil: as soon as connected), whose
    /// response may take `timeout`.
    ///
    /// The client connects (opens the proxy's tunnel, runs the TLS handshake) first and then waits
    /// for `sendAt`, so that none of it delays the send or widens the interval.
    func perform(
        method: HTTPRequestRecord.Method, sendAt: MonotonicInstant?, timeout: Duration, now: MonotonicInstant
    ) async -> HTTPExchangeOutcome {
        await client.perform(target, method: method, sendAt: sendAt, timeout: timeout, now: now)
    }
}

/// What one HTTP request produced: a response head, or why there was none.
package struct HTTPExchangeOutcome: Sendable {
    /// A response head, or why there was none.
    package enum Result: Sendable {
        /// The response head arrived; the receive instant is when it was complete. No body is kept.
        case response(HTTPResponseHead)
        /// No response: the error code to report and a readable reason.
        case failed(HTTPTimeError.Code, String)
        /// The surrounding task was cancelled.
        case cancelled
    }

    /// The monotonic instant just before the request was handed to the transport (for the plain
    /// client: just before the request's first byte was written, after connecting).
    package let sent: MonotonicInstant
    /// The monotonic instant the response head was complete (or the failure was noticed).
    package let received: MonotonicInstant
    /// What came back.
    package let result: Result
    /// For `https://`: the validity periods of the server's verified chain, leaf first.
    package var certificateChain: [CertificateValidity] = []
    /// For a failure: the HTTP status that caused it (a proxy's answer to `CONNECT`).
    package var statusCode: Int?

    /// An outcome from its parts.
    package init(
        sent: MonotonicInstant, received: MonotonicInstant, result: Result,
        certificateChain: [CertificateValidity] = [], statusCode: Int? = nil
    ) {
        self.sent = sent
        self.received = received
        self.result = result
        self.certificateChain = certificateChain
        self.statusCode = statusCode
    }
}
