import SNTP

/// What one HTTP request produced: a response head, or why there was none.
struct HTTPExchangeOutcome: Sendable {
    enum Result: Sendable {
        /// The response head arrived; the receive instant is when it was complete. No body is kept.
        case response(HTTPResponseHead)
        /// No response: the error code to report, a readable reason, and the `NSURLErrorDomain`
        /// code URLSession would have reported.
        case failed(HTTPTimeError.Code, String, urlErrorCode: Int?)
        /// The surrounding task was cancelled.
        case cancelled
    }

    /// The monotonic instant just before the request was handed to the transport (for the plain
    /// client: just before the request's first byte was written, after connecting).
    let sent: MonotonicInstant
    /// The monotonic instant the response head was complete (or the failure was noticed).
    let received: MonotonicInstant
    let result: Result
}
