import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one request produced: a response, or why there was none.
struct HTTPExchangeOutcome: Sendable {
    enum Result: Sendable {
        /// A response arrived (headers complete; for `GET` also the body).
        case response(HTTPURLResponse)
        /// No response within the timeout (our own timer; URLSession's own timeout arrives as
        /// ``failed(code:description:)`` with `NSURLErrorTimedOut`).
        case timedOut
        /// The transport failed with this `NSURLErrorDomain` (or other) code and description.
        case failed(code: Int, description: String)
        /// The surrounding task was cancelled.
        case cancelled
    }

    /// The monotonic instant just before the request was handed to URLSession.
    let sent: MonotonicInstant
    /// The monotonic instant the completion was delivered (or the timeout fired).
    let received: MonotonicInstant
    let result: Result
}

/// Runs one URLSession data task with a hard timeout and task cancellation, taking the send and
/// receive instants from a monotonic clock as close to the transport as URLSession allows.
enum HTTPExchange {
    static func perform(
        _ request: URLRequest, session: URLSession, timeout: Duration, clock: any MonotonicClockSource
    ) async -> HTTPExchangeOutcome {
        let pending = PendingExchange()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPExchangeOutcome, Never>) in
                let sent = clock.now()
                let task = session.dataTask(with: request) { _, response, error in
                    let received = clock.now()
                    let result: HTTPExchangeOutcome.Result
                    if let error {
                        let nsError = error as NSError
                        result = .failed(code: nsError.code, description: nsError.localizedDescription)
                    } else if let http = response as? HTTPURLResponse {
                        result = .response(http)
                    } else {
                        result = .failed(
                            code: NSURLErrorBadServerResponse, description: "not an HTTP response")
                    }
                    pending.finish(HTTPExchangeOutcome(sent: sent, received: received, result: result))
                }
                pending.start(continuation: continuation, task: task, sent: sent, clock: clock)
                task.resume()
                pending.setTimer(
                    Task {
                        do { try await Task.sleep(for: timeout) } catch { return }
                        pending.finish(
                            HTTPExchangeOutcome(sent: sent, received: clock.now(), result: .timedOut))
                    })
            }
        } onCancel: {
            pending.cancel()
        }
    }
}

/// The shared state of one exchange: whichever of completion, timeout or cancellation comes first
/// resumes the continuation; the others find it gone. The data task is cancelled when it lost.
private final class PendingExchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<HTTPExchangeOutcome, Never>?
        var task: URLSessionDataTask?
        var sent: MonotonicInstant?
        var clock: (any MonotonicClockSource)?
        var timer: Task<Void, Never>?
        var isFinished = false
        var wasCancelledEarly = false
    }

    private let state = Mutex(State())

    func start(
        continuation: CheckedContinuation<HTTPExchangeOutcome, Never>, task: URLSessionDataTask,
        sent: MonotonicInstant, clock: any MonotonicClockSource
    ) {
        let cancelledEarly = state.withLock { state in
            state.continuation = continuation
            state.task = task
            state.sent = sent
            state.clock = clock
            return state.wasCancelledEarly
        }
        if cancelledEarly { cancel() }
    }

    /// Keeps the timeout's work item so that it can be cancelled as soon as the exchange ends.
    func setTimer(_ timer: Task<Void, Never>) {
        let isFinished = state.withLock { state in
            state.timer = timer
            return state.isFinished
        }
        if isFinished { timer.cancel() }
    }

    func finish(_ outcome: HTTPExchangeOutcome) {
        let claimed = state.withLock { state -> Claimed? in
            guard !state.isFinished, let continuation = state.continuation else { return nil }
            state.isFinished = true
            defer {
                state.continuation = nil
                state.task = nil
                state.timer = nil
            }
            return Claimed(continuation: continuation, task: state.task, timer: state.timer)
        }
        guard let claimed else { return }
        claimed.timer?.cancel()
        if case .response = outcome.result {} else { claimed.task?.cancel() }
        claimed.continuation.resume(returning: outcome)
    }

    private struct Claimed {
        var continuation: CheckedContinuation<HTTPExchangeOutcome, Never>
        var task: URLSessionDataTask?
        var timer: Task<Void, Never>?
    }

    func cancel() {
        let snapshot = state.withLock { state -> (MonotonicInstant, any MonotonicClockSource)? in
            guard let sent = state.sent, let clock = state.clock else {
                state.wasCancelledEarly = true
                return nil
            }
            return (sent, clock)
        }
        guard let (sent, clock) = snapshot else { return }
        finish(HTTPExchangeOutcome(sent: sent, received: clock.now(), result: .cancelled))
    }
}
