import NetClockPlatform
import SNTP
import Synchronization

/// Gathers results of work running on pool threads and resumes one waiter as soon as enough of
/// them have arrived, or all of them, or the timeout passed, or the waiting task was cancelled,
/// whichever comes first. Then ``stop`` is set, so work still queued never starts and work still
/// running ends at its next poll slice; results delivered after that are dropped.
final class CompletionCollector<Result: Sendable>: Sendable {
    private struct State {
        var results: [Int: Result] = [:]
        var satisfied = 0
        var continuation: CheckedContinuation<[Int: Result], Never>?
        var finished = false
        var timer: RelativeTimer.Token?
    }

    private let expected: Int
    private let enough: Int
    private let isSatisfying: @Sendable (Result) -> Bool
    private let state = Mutex(State())
    /// Set once the waiter has been resumed: the work it was waiting for should stop.
    let stop = CancellationFlag()

    init(expected: Int, enough: Int, isSatisfying: @escaping @Sendable (Result) -> Bool) {
        self.expected = expected
        self.enough = enough
        self.isSatisfying = isSatisfying
    }

    /// Records the result of task `index`.
    func deliver(_ result: Result, index: Int) {
        let resume: (CheckedContinuation<[Int: Result], Never>, [Int: Result])? = state.withLock { state in
            guard !state.finished else { return nil }
            state.results[index] = result
            if isSatisfying(result) { state.satisfied += 1 }
            guard state.results.count == expected || state.satisfied >= enough else { return nil }
            guard let continuation = state.continuation else { return nil }
            return Self.claim(&state).map { (continuation, $0) }
        }
        if let (continuation, results) = resume { finish(continuation, results) }
    }

    /// Waits until enough results, or all, have arrived, or `timeout` has passed, or the task is
    /// cancelled (then it returns what has arrived so far; the caller checks `Task.isCancelled`).
    /// The timeout runs on ``RelativeTimer``, which keeps working when the wall clock is faked.
    func wait(timeout: Duration) async -> [Int: Result] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: [Int: Result]? = state.withLock { state in
                    if state.finished || state.results.count == expected || state.satisfied >= enough {
                        return Self.claim(&state) ?? state.results
                    }
                    state.continuation = continuation
                    return nil
                }
                if let ready {
                    finish(continuation, ready)
                    return
                }
                let token = RelativeTimer.shared.schedule(after: timeout) { [self] in finishNow() }
                let isFinished = state.withLock { state in
                    state.timer = token
                    return state.finished
                }
                if isFinished { RelativeTimer.shared.cancel(token) }
            }
        } onCancel: {
            finishNow()
        }
    }

    /// Marks the collection finished and returns its results; nil when it was finished already.
    private static func claim(_ state: inout State) -> [Int: Result]? {
        guard !state.finished else { return nil }
        state.finished = true
        state.continuation = nil
        return state.results
    }

    private func finish(_ continuation: CheckedContinuation<[Int: Result], Never>, _ results: [Int: Result]) {
        stop.cancel()
        if let token = state.withLock({ $0.timer }) { RelativeTimer.shared.cancel(token) }
        continuation.resume(returning: results)
    }

    /// Resumes the waiter with what has arrived, if it is still waiting; before the wait began, it
    /// makes the wait return at once.
    private func finishNow() {
        let resume: (CheckedContinuation<[Int: Result], Never>, [Int: Result])? = state.withLock { state in
            guard let continuation = state.continuation else {
                state.finished = true
                return nil
            }
            return Self.claim(&state).map { (continuation, $0) }
        }
        if let (continuation, results) = resume {
            finish(continuation, results)
        } else {
            stop.cancel()
        }
    }
}
