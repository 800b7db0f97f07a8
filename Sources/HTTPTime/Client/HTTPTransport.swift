import SNTP

/// How one measurement's requests travel: ``HTTPHeadClient`` to the URL's host and port, over
/// plain TCP for `http://` and over TLS for `https://`, one connection per request.
struct HTTPTransport: Sendable {
    /// Where the requests go.
    let target: HTTPRequestTarget
    /// The client that makes them.
    let client: HTTPHeadClient

    /// Performs one request, sent at `sendAt` (nil: now), whose response may take `timeout`.
    ///
    /// The client connects (and runs the TLS handshake) first and then waits for `sendAt`, so that
    /// neither delays the send.
    func perform(method: HTTPRequestRecord.Method, sendAt: MonotonicInstant?, timeout: Duration) async
        -> HTTPExchangeOutcome
    {
        await client.perform(target, method: method, sendAt: sendAt, timeout: timeout)
    }
}
