import NetClockPlatform
import SNTP
import Synchronization

/// Runs one HTTP request on some transport (``HTTPHeadClient`` on the blocking pool) with a hard timeout
/// and task cancellation: whichever of the transport's own finish, the timeout or the cancellation
/// comes first decides the outcome, and the transport is told to abort when it lost. The timeout
/// runs on ``RelativeTimer``, so it fires when the wall clock is faked too.
enum HTTPExchange {
    /// Starts a request and waits for its outcome.
    ///
    /// - Parameters:
    ///   - timeout: how long the transport may take before the outcome is a timeout.
    ///   - timeoutReason: the reason given when the timeout decides.
    ///   - start: starts the request, returning the action that aborts it. The transport calls
    ///     `finish` with its outcome, from any thread; only the first outcome of all counts.
    static func run(
        timeout: Duration, timeoutReason: String, clock: any MonotonicClockSource,
        start: (_ finish: @escaping @Sendable (HTTPExchangeOutcome) -> Void) -> @Sendable () -> Void
    ) async -> HTTPExchangeOutcome {
        let pending = PendingExchange(clock: clock)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPExchangeOutcome, Never>) in
                let started = clock.now()
                guard pending.begin(continuation, started: started) else { return }
                let abort = start { outcome in pending.finish(outcome, fromTransport: true) }
                pending.setAbort(abort)
                pending.setTimer(
                    RelativeTimer.shared.schedule(after: timeout) {
                        pending.finish(
                            HTTPExchangeOutcome(
                                sent: started, received: clock.now(),
                                result: .failed(.timeout, timeoutReason, urlErrorCode: nil)),
                            fromTransport: false)
                    })
            }
        } onCancel: {
            pending.cancel()
        }
    }
}

/// The shared state of one exchange: whichever of the transport, the timer or cancellation comes
/// first resumes the continuation; the others find it gone. The transport is aborted when it lost.
private final class PendingExchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<HTTPExchangeOutcome, Never>?
        var started: MonotonicInstant?
        var abort: (@Sendable () -> Void)?
        var timer: RelativeTimer.Token?
        var isFinished = false
        var transportLost = false
        var wasCancelledEarly = false
    }

    private let clock: any MonotonicClockSource
    private let state = Mutex(State())

    init(clock: any MonotonicClockSource) { self.clock = clock }

    /// Registers the continuation; false (having resumed it with `.cancelled`) when the task was
    /// cancelled before the exchange began, in which case nothing is started.
    func begin(_ continuation: CheckedContinuation<HTTPExchangeOutcome, Never>, started: MonotonicInstant)
        -> Bool
    {
        let cancelledEarly = state.withLock { state in
            if state.wasCancelledEarly {
                state.isFinished = true
                return true
            }
            state.continuation = continuation
            state.started = started
            return false
        }
        if cancelledEarly {
            continuation.resume(
                returning: HTTPExchangeOutcome(sent: started, received: clock.now(), result: .cancelled))
        }
        return !cancelledEarly
    }

    /// Keeps the transport's abort action, running it at once when the transport already lost.
    func setAbort(_ abort: @escaping @Sendable () -> Void) {
        let lost = state.withLock { state in
            state.abort = abort
            return state.transportLost
        }
        if lost { abort() }
    }

    /// Keeps the timeout's task so that it can be cancelled as soon as the exchange ends.
    func setTimer(_ timer: RelativeTimer.Token) {
        let isFinished = state.withLock { state in
            state.timer = timer
            return state.isFinished
        }
        if isFinished { RelativeTimer.shared.cancel(timer) }
    }

    func finish(_ outcome: HTTPExchangeOutcome, fromTransport: Bool) {
        let claimed = state.withLock { state -> Claimed? in
            guard !state.isFinished, let continuation = state.continuation else { return nil }
            state.isFinished = true
            state.transportLost = !fromTransport
            defer {
                state.continuation = nil
                state.timer = nil
                state.abort = nil
            }
            return Claimed(
                continuation: continuation, abort: fromTransport ? nil : state.abort, timer: state.timer)
        }
        guard let claimed else { return }
        if let timer = claimed.timer { RelativeTimer.shared.cancel(timer) }
        claimed.abort?()
        claimed.continuation.resume(returning: outcome)
    }

    private struct Claimed {
        var continuation: CheckedContinuation<HTTPExchangeOutcome, Never>
        var abort: (@Sendable () -> Void)?
        var timer: RelativeTimer.Token?
    }

    func cancel() {
        let started = state.withLock { state -> MonotonicInstant? in
            guard let started = state.started else {
                state.wasCancelledEarly = true
                return nil
            }
            return started
        }
        guard let started else { return }
        finish(
            HTTPExchangeOutcome(sent: started, received: clock.now(), result: .cancelled),
            fromTransport: false)
    }
}
