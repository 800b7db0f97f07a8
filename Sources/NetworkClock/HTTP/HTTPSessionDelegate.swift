import Foundation
import HTTPTimeParsing
import SNTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of the URLSession that ``URLSessionTransport`` runs `https://` requests on: it takes
/// the receive instant when the response head arrives, finishes the exchange right there, and
/// cancels a `GET` at once so that no body is read beyond what is already in flight; body data is
/// dropped, never collected. Redirects are not followed: a 3xx response carries the server's time
/// like any other, as with the plain HTTP client.
///
/// Measured on swift-corelibs-foundation 6.3.1: answering `.cancel` to the response disposition is
/// ignored there (a 100 MB body was read to the end), so the task is cancelled directly as well.
final class HTTPSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// The exchange a task belongs to.
    struct Registration: Sendable {
        /// When the request was handed to URLSession.
        let sent: MonotonicInstant
        let clock: any MonotonicClockSource
        /// Whether to cancel the task once the response head is in (`GET`: a body follows).
        let cancelsAfterResponse: Bool
        let finish: @Sendable (HTTPExchangeOutcome) -> Void
    }

    private let registrations = Mutex<[Int: Registration]>([:])

    /// Routes `task`'s callbacks to `registration`; call before resuming the task.
    func register(_ task: URLSessionTask, _ registration: Registration) {
        registrations.withLock { $0[task.taskIdentifier] = registration }
    }

    private func take(_ task: URLSessionTask) -> Registration? {
        registrations.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let registration = take(dataTask) else {
            completionHandler(.cancel)
            dataTask.cancel()
            return
        }
        let received = registration.clock.now()
        let result: HTTPExchangeOutcome.Result
        if let http = response as? HTTPURLResponse {
            result = .response(HTTPResponseHead(http))
        } else {
            result = .failed(.transport, "not an HTTP response", urlErrorCode: NSURLErrorBadServerResponse)
        }
        registration.finish(HTTPExchangeOutcome(sent: registration.sent, received: received, result: result))
        if registration.cancelsAfterResponse || !(response is HTTPURLResponse) {
            completionHandler(.cancel)
            dataTask.cancel()
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Body bytes that arrived before the cancellation took effect: dropped.
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let registration = take(task) else { return }
        let received = registration.clock.now()
        let result: HTTPExchangeOutcome.Result
        if let error {
            let nsError = error as NSError
            let code: HTTPTimeError.Code = nsError.code == NSURLErrorTimedOut ? .timeout : .transport
            result = .failed(
                code, "\(nsError.localizedDescription) (URLError \(nsError.code))", urlErrorCode: nsError.code
            )
        } else {
            result = .failed(
                .transport, "the transfer ended without a response", urlErrorCode: NSURLErrorBadServerResponse
            )
        }
        registration.finish(HTTPExchangeOutcome(sent: registration.sent, received: received, result: result))
    }
}

extension HTTPResponseHead {
    /// The status and header fields of a URLSession response (fields sorted by name, as the
    /// dictionary has no order; URLSession has already joined repeated fields).
    init(_ response: HTTPURLResponse) {
        var fields: [Field] = []
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String, let text = value as? String else { continue }
            fields.append(Field(name: name, value: text))
        }
        fields.sort { $0.name < $1.name }
        self.init(statusCode: response.statusCode, fields: fields)
    }
}
