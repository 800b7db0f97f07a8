import Synchronization

/// The one way the package waits for blocking work: jobs submitted to a ``BlockingPool`` and one
/// waiter for their values. One job awaited (``BlockingPool/run(_:)``), a sync's parallel bursts
/// with a quorum, and an HTTP exchange with a hard timeout are all this type.
package final class BlockingBatch<Value: Sendable>: Sendable {
    /// What a cancelled waiting task does.
    package enum TaskCancellation: Sendable {
        /// Return at once with what has arrived (the jobs are stopped).
        case returnAtOnce
        /// Keep waiting for the jobs: for work that must not be cut short, such as writing a file.
        case keepWaiting
    }

    private struct State {
        var submitted = 0
        /// Jobs that ended, with a value or dropped by the pool.
        var ended = 0
        var results: [Int: Value] = [:]
        var satisfied = 0
        var continuation: CheckedContinuation<[Int: Value], Never>?
        var isFinished = false
        var timer: RelativeTimer.Token?
    }

    /// Where the jobs run.
    private let pool: BlockingPool
    /// How many accepted values end the wait early.
    private let enough: Int
    /// Which values count towards ``enough``.
    private let isEnough: @Sendable (Value) -> Bool
    private let state = Mutex(State())
    /// Set once the waiter returned: the jobs should stop.
    package let stop = CancellationFlag()

    /// A batch whose wait ends early once `enough` values satisfy `isEnough` (nil: only when all
    /// jobs finished).
    package init(
        on pool: BlockingPool = .shared, enough: Int? = nil,
        isEnough: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) {
        self.pool = pool
        self.enough = enough ?? .max
        self.isEnough = isEnough
    }

    /// Submits `body` and returns its index in the results. It gets the batch's ``stop`` flag and
    /// should poll it between bounded waits.
    @discardableResult
    package func submit(_ body: @escaping @Sendable (CancellationFlag) -> Value) -> Int {
        let index = state.withLock { state in
            defer { state.submitted += 1 }
            return state.submitted
        }
        let stop = self.stop
        let kept = Mutex<Value?>(nil)
        // The value is delivered once the pool counts the thread as free again, so that work the
        // waiter submits in reaction reuses it instead of starting another.
        pool.submit(
            flag: stop, body: { kept.withLock { $0 = body(stop) } },
            complete: { [self] in deliver(kept.withLock { $0.take() }, index: index) },
            dropped: { [self] in deliver(nil, index: index) })
        return index
    }

    /// Waits until every submitted job finished, or `enough` of them produced a value that
    /// ``isEnough`` accepts, or `timeout` passed (on ``RelativeTimer``, which a faked wall clock
    /// does not move), or the waiting task was cancelled, whichever comes first; returns the values
    /// that arrived, by index.
    ///
    /// Then ``stop`` is set: jobs still queued never start, running ones see it at their next poll
    /// slice (``CancellableWait/slice``), and values delivered afterwards are dropped. The waiter is
    /// claimed before the flag is set, so a job cut short by the flag can never win the race with
    /// the reason it was cut short.
    package func wait(
        timeout: Duration? = nil, onTaskCancellation: TaskCancellation = .returnAtOnce
    ) async -> [Int: Value] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: [Int: Value]? = state.withLock { state in
                    if state.isFinished || isComplete(state) { return claim(&state) ?? state.results }
                    state.continuation = continuation
                    return nil
                }
                if let ready {
                    finish(continuation, ready)
                    return
                }
                guard let timeout else { return }
                let token = RelativeTimer.shared.schedule(after: timeout) { [self] in finishNow() }
                let isFinished = state.withLock { state in
                    state.timer = token
                    return state.isFinished
                }
                if isFinished { RelativeTimer.shared.cancel(token) }
            }
        } onCancel: {
            if onTaskCancellation == .returnAtOnce { finishNow() }
        }
    }

    /// Stops the jobs and ends the wait with what has arrived.
    package func cancel() {
        finishNow()
    }

    // MARK: Internals

    private func isComplete(_ state: State) -> Bool {
        // Jobs are submitted before the wait, so none submitted means nothing to wait for.
        state.satisfied >= enough || state.ended == state.submitted
    }

    /// A job ended with `value` (nil: it did not run, because the pool could start no thread or
    /// the batch had stopped).
    private func deliver(_ value: Value?, index: Int) {
        let resume: (CheckedContinuation<[Int: Value], Never>, [Int: Value])? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.ended += 1
            if let value {
                state.results[index] = value
                if isEnough(value) { state.satisfied += 1 }
            }
            guard isComplete(state), let continuation = state.continuation else { return nil }
            return claim(&state).map { (continuation, $0) }
        }
        if let (continuation, results) = resume { finish(continuation, results) }
    }

    /// Marks the wait finished and returns the values; nil when it was finished already.
    private func claim(_ state: inout State) -> [Int: Value]? {
        guard !state.isFinished else { return nil }
        state.isFinished = true
        state.continuation = nil
        return state.results
    }

    private func finish(_ continuation: CheckedContinuation<[Int: Value], Never>, _ results: [Int: Value]) {
        stop.cancel()
        pool.discardQueued(flaggedBy: stop)
        if let token = state.withLock({ $0.timer }) { RelativeTimer.shared.cancel(token) }
        continuation.resume(returning: results)
    }

    /// Resumes the waiter with what has arrived; before the wait began, makes it return at once.
    private func finishNow() {
        let resume: (CheckedContinuation<[Int: Value], Never>, [Int: Value])? = state.withLock { state in
            guard let continuation = state.continuation else {
                state.isFinished = true
                return nil
            }
            return claim(&state).map { (continuation, $0) }
        }
        if let (continuation, results) = resume {
            finish(continuation, results)
        } else {
            stop.cancel()
            pool.discardQueued(flaggedBy: stop)
        }
    }
}

extension BlockingPool {
    /// Runs `body` on a pool thread and returns its value, without blocking the caller's thread.
    ///
    /// When the calling task is cancelled this throws `CancellationError` at once: a job still
    /// queued never runs; a running job's flag (passed to `body`) is set and its value, when it
    /// comes, is dropped.
    package func run<T: Sendable>(
        _ body: @escaping @Sendable (CancellationFlag) -> T
    ) async throws(CancellationError) -> T {
        // A task cancelled before it asked never runs its job.
        if Task.isCancelled { throw CancellationError() }
        let batch = BlockingBatch<T>(on: self)
        batch.submit(body)
        guard let value = await batch.wait()[0] else { throw CancellationError() }
        return value
    }

    /// Runs `body` on a pool thread and waits for it even if the calling task is cancelled: for
    /// work that must not be cut short, such as writing a file.
    package func runToEnd<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        let batch = BlockingBatch<T>(on: self)
        batch.submit { _ in body() }
        // Only a pool that could start no thread at all drops a job; then it runs here.
        return await batch.wait(onTaskCancellation: .keepWaiting)[0] ?? body()
    }
}
