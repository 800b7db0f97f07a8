import Foundation
import SNTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the requests of one measurement of an `https://` URL through one ephemeral URLSession with
/// no cache and no cookies, with ``HTTPSessionDelegate`` taking the receive instant at the response
/// head and stopping any body. Our own timer enforces the exact timeout.
///
/// Not protected against swift-corelibs-foundation issue 5285: on Linux with Swift 6.3, a server
/// that closes the connection inside the response head (after the status line) makes URLSession
/// stop the whole process. `http://` URLs use ``PlainHTTPClient`` instead, which has no such
/// failure; TLS needs URLSession.
final class URLSessionTransport: Sendable {
    private let session: URLSession
    private let delegate: HTTPSessionDelegate

    init(configuration: HTTPTimeSource.Configuration) {
        let delegate = HTTPSessionDelegate()
        self.delegate = delegate
        self.session = URLSession(
            configuration: HTTPTimeSource.sessionConfiguration(configuration), delegate: delegate,
            delegateQueue: nil)
    }

    /// Cancels whatever is still running and releases the session (and with it the delegate).
    func invalidate() { session.invalidateAndCancel() }

    /// Performs one request, giving up after `timeout`.
    func perform(
        _ url: URL, method: HTTPRequestRecord.Method, timeout: Duration, requestTimeout: Duration,
        clock: any MonotonicClockSource
    ) async -> HTTPExchangeOutcome {
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData,
            timeoutInterval: HTTPTimeSource.foundationTimeout(requestTimeout))
        request.httpMethod = method.rawValue
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        request.setValue("no-cache", forHTTPHeaderField: "Pragma")
        request.setValue("NetworkClock", forHTTPHeaderField: "User-Agent")
        let session = self.session
        let delegate = self.delegate
        return await HTTPExchange.run(
            timeout: timeout, timeoutReason: "no response from \(url.absoluteString) in time", clock: clock
        ) { finish in
            let task = session.dataTask(with: request)
            delegate.register(
                task,
                HTTPSessionDelegate.Registration(
                    sent: clock.now(), clock: clock, cancelsAfterResponse: method != .head, finish: finish))
            task.resume()
            return { task.cancel() }
        }
    }
}
