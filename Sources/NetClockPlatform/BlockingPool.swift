import Dispatch
import Synchronization

/// A bounded pool of threads for blocking work — `getaddrinfo`, NTP bursts waiting in `poll(2)`,
/// plain-HTTP exchanges, file writes with `fsync` — so that it never occupies one of Swift
/// concurrency's cooperative threads (one per core) and never starts a thread per request.
///
/// - Threads are started lazily, one per job while fewer than ``maximumThreads`` are alive and none
///   is idle, and reused; a thread idle for ``idleTimeout`` ends, so an idle process holds none.
/// - Jobs beyond the cap wait in a FIFO queue.
/// - Dispatch's global queues are not used: on Linux they run only about one blocking item per
///   core at a time, so with two cores two silent servers would keep a third, good one from ever
///   being queried. The default cap (``shared``, 64 threads) lets a sync's parallel bursts to many
///   addresses, and a few syncs at once, run without being serialised.
///
/// Cancellation (see ``run(_:)``): a job not yet started is removed from the queue and its waiter
/// resumes at once; a running job's ``CancellationFlag`` is set and its waiter resumes at once,
/// while the thread finishes at its next poll slice (``CancellableWait/slice``), or by its own
/// deadline for work that cannot poll (`getaddrinfo`).
///
/// Modelled on swift-nio's `NIOThreadPool`, with lazily started threads and removal of cancelled
/// jobs from the queue.
package final class BlockingPool: Sendable {
    /// The pool the package's blocking work runs on.
    package static let shared = BlockingPool(maximumThreads: 64)

    /// The most threads alive at once.
    package let maximumThreads: Int
    /// How long an idle thread waits for work before it ends.
    package let idleTimeout: Duration
    private let state: Mutex<BlockingPoolState>

    /// Creates a pool; no thread is started until the first job.
    package init(maximumThreads: Int, idleTimeout: Duration = .seconds(5)) {
        self.maximumThreads = max(1, maximumThreads)
        self.idleTimeout = max(idleTimeout, .milliseconds(1))
        self.state = Mutex(BlockingPoolState(maximumThreads: maximumThreads))
    }

    /// A snapshot of the pool's load, for tests and diagnostics.
    package struct Statistics: Hashable, Sendable {
        /// Threads alive now.
        package var threads: Int
        /// Threads parked idle now.
        package var idle: Int
        /// Jobs waiting for a thread now.
        package var queued: Int
        /// The most threads ever alive at once.
        package var peakThreads: Int
    }

    /// The pool's load now.
    package var statistics: Statistics {
        state.withLock {
            Statistics(threads: $0.threads, idle: $0.idle, queued: $0.queued, peakThreads: $0.peakThreads)
        }
    }

    /// Runs `body` on a pool thread and returns its result, without blocking the caller's thread.
    ///
    /// When the calling task is cancelled, this throws `CancellationError` at once: a job still
    /// queued is removed and never runs; a running job's flag (passed to `body`) is set, and its
    /// result, when it comes, is discarded. `body` should poll the flag between bounded waits.
    package func run<T: Sendable>(
        _ body: @escaping @Sendable (CancellationFlag) -> T
    ) async throws(CancellationError) -> T {
        let waiter = PoolWaiter<T>()
        let flag = CancellationFlag()
        let id = state.withLock { $0.makeID() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.install(continuation) else { return }
                submit(
                    BlockingPoolState.Job(
                        id: id, flag: flag, body: { waiter.keep(body(flag)) },
                        drop: { waiter.resume(.failure(CancellationError())) },
                        complete: { waiter.resumeWithKept() }))
            }
        } onCancel: {
            // The waiter first: once the flag is set the job may return at once with whatever it
            // had (a burst cut short reports timeouts), and that result must not win the race.
            waiter.resume(.failure(CancellationError()))
            flag.cancel()
            _ = state.withLock { $0.remove(id) }
        }
        return try result.get()
    }

    /// Runs `body` on a pool thread and waits for it to finish even if the calling task is
    /// cancelled: for work that must not be cut short, such as writing a file.
    package func runToCompletion<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let id = state.withLock { $0.makeID() }
            let once = Mutex(Optional(continuation))
            let resume: @Sendable (T?) -> Void = { value in
                guard let continuation = once.withLock({ $0.take() }) else { return }
                // A dropped job (no thread could be started) runs on the caller's behalf here.
                continuation.resume(returning: value ?? body())
            }
            submit(
                BlockingPoolState.Job(
                    id: id, flag: CancellationFlag(), body: { resume(body()) }, drop: { resume(nil) }))
        }
    }

    /// Starts `body` on a pool thread and returns at once. The job never starts if `flag` is set
    /// before a thread takes it; once running, `body` should poll `flag` itself.
    package func execute(flag: CancellationFlag, _ body: @escaping @Sendable () -> Void) {
        let id = state.withLock { $0.makeID() }
        submit(BlockingPoolState.Job(id: id, flag: flag, body: body, drop: {}))
    }

    private func submit(_ job: BlockingPoolState.Job) {
        switch state.withLock({ $0.submit(job) }) {
        case .queued, .discarded:
            break
        case .handedOff(let worker):
            worker.wakeUp.signal()
        case .startThread(let first):
            startThread(first)
        }
    }

    private func startThread(_ first: BlockingPoolState.Job) {
        let worker = BlockingPoolState.Worker()
        let started = PoolThread.startDetached { [self] in work(worker, first: first) }
        guard !started else { return }
        switch state.withLock({ $0.threadFailedToStart(first) }) {
        case .queued: break
        case .handedOff(let worker): worker.wakeUp.signal()
        case .drop(let job): job.drop()
        }
    }

    /// A pool thread's life: run jobs while there are any, park, end after ``idleTimeout`` idle.
    private func work(_ worker: BlockingPoolState.Worker, first: BlockingPoolState.Job) {
        var job: BlockingPoolState.Job? = first
        let (seconds, attoseconds) = idleTimeout.components
        let idleNanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        while true {
            let afterJob = job != nil
            if let current = job {
                if !current.flag.isCancelled { current.body() }
                state.withLock { $0.beginFinishing() }
                current.complete()
            }
            job = state.withLock { $0.next(for: worker, afterJob: afterJob) }
            if job != nil { continue }
            // Parked: wait for a hand-off, relative timeout (works when the wall clock is faked).
            if worker.wakeUp.wait(timeout: .now() + .nanoseconds(idleNanoseconds)) == .timedOut {
                if state.withLock({ $0.retire(worker) }) { return }
                // A job was handed over just as the wait ended; its signal is on its way.
                worker.wakeUp.wait()
            }
            job = state.withLock { $0.takeHandOff(for: worker) }
        }
    }
}

/// The one waiter of ``BlockingPool/run(_:)``: resumed exactly once, by the job's result or by
/// cancellation, whichever comes first.
private final class PoolWaiter<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<T, CancellationError>, Never>?
        var kept: T?
        var isDone = false
    }

    private let state = Mutex(State())

    /// Keeps the continuation; false (having resumed it with a cancellation) when the task was
    /// cancelled before, in which case the job must not be submitted.
    func install(_ continuation: CheckedContinuation<Result<T, CancellationError>, Never>) -> Bool {
        let cancelledEarly = state.withLock { state in
            if state.isDone { return true }
            state.continuation = continuation
            return false
        }
        if cancelledEarly { continuation.resume(returning: .failure(CancellationError())) }
        return !cancelledEarly
    }

    /// Keeps the job's result until ``resumeWithKept()``.
    func keep(_ value: T) {
        state.withLock { $0.kept = value }
    }

    /// Resumes the waiter with the kept result, if there is one and it was not resumed already.
    func resumeWithKept() {
        guard let value = state.withLock({ $0.kept.take() }) else { return }
        resume(.success(value))
    }

    /// Resumes the waiter with `result` unless it was resumed already.
    func resume(_ result: Result<T, CancellationError>) {
        let continuation = state.withLock {
            state -> CheckedContinuation<Result<T, CancellationError>, Never>? in
            guard !state.isDone else { return nil }
            state.isDone = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }
}
