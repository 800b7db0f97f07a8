import Foundation
import SNTP

/// How one measurement's requests travel: NetworkClock's own client for `http://`, URLSession (for
/// TLS) for `https://`.
enum HTTPTransport: Sendable {
    /// ``PlainHTTPClient`` to the host and port of the request.
    case plain(PlainHTTPRequest, PlainHTTPClient)
    /// URLSession, through ``URLSessionTransport``.
    case urlSession(URL, URLSessionTransport)

    /// Performs one request, sent at `sendAt` (nil: now), whose response may take `timeout`.
    ///
    /// The plain client connects first and then waits for `sendAt`, so that connecting does not
    /// delay the send; with URLSession the wait comes first.
    func perform(
        method: HTTPRequestRecord.Method, sendAt: MonotonicInstant?, timeout: Duration,
        configuration: HTTPTimeSource.Configuration, clock: any MonotonicClockSource
    ) async -> HTTPExchangeOutcome {
        switch self {
        case .plain(let request, let client):
            return await client.perform(request, method: method, sendAt: sendAt, timeout: timeout)
        case .urlSession(let url, let transport):
            if let sendAt {
                let before = clock.now()
                let wait = sendAt - before
                if wait > .zero {
                    do { try await Task.sleep(for: wait) } catch {
                        return HTTPExchangeOutcome(sent: before, received: clock.now(), result: .cancelled)
                    }
                }
            }
            return await transport.perform(
                url, method: method, timeout: timeout, requestTimeout: configuration.requestTimeout,
                clock: clock)
        }
    }

    /// Releases what the transport holds (the URLSession); the plain client holds nothing between
    /// requests.
    func invalidate() {
        if case .urlSession(_, let transport) = self { transport.invalidate() }
    }
}
