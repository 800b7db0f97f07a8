import Dispatch
import SNTP
import Synchronization

/// Gathers results of work running on other threads and resumes one waiter as soon as enough of
/// them have arrived, or all of them, whichever comes first. Work that finishes after that is still
/// recorded by its own completion handler but no longer awaited.
final class CompletionCollector<Result: Sendable>: Sendable {
    private struct State {
        var results: [Int: Result] = [:]
        var satisfied = 0
        var continuation: CheckedContinuation<[Int: Result], Never>?
        var finished = false
    }

    private let expected: Int
    private let enough: Int
    private let isSatisfying: @Sendable (Result) -> Bool
    private let state = Mutex(State())

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
            state.finished = true
            state.continuation = nil
            return (continuation, state.results)
        }
        if let (continuation, results) = resume { continuation.resume(returning: results) }
    }

    /// Waits until enough results, or all, have arrived, or `timeout` has passed (then it returns
    /// what has arrived so far). The timeout is a backstop: the work itself is bounded too.
    func wait(timeout: Duration) async -> [Int: Result] {
        await withCheckedContinuation { continuation in
            let ready: [Int: Result]? = state.withLock { state in
                if state.results.count == expected || state.satisfied >= enough {
                    state.finished = true
                    return state.results
                }
                state.continuation = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            let (seconds, attoseconds) = max(timeout, .zero).components
            let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                finishNow()
            }
        }
    }

    /// Resumes the waiter with what has arrived, if it is still waiting.
    private func finishNow() {
        let resume: (CheckedContinuation<[Int: Result], Never>, [Int: Result])? = state.withLock { state in
            guard !state.finished, let continuation = state.continuation else { return nil }
            state.finished = true
            state.continuation = nil
            return (continuation, state.results)
        }
        if let (continuation, results) = resume { continuation.resume(returning: results) }
    }
}
