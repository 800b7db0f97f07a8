import Dispatch
import Synchronization

/// A bounded pool of threads for blocking work (`getaddrinfo`, `poll(2)`, `fsync`), kept off Swift
/// concurrency's cooperative threads: threads start lazily up to ``maximumThreads``, end after
/// ``idleTimeout`` idle, and jobs beyond the cap wait in a FIFO queue.
///
/// Jobs carry a ``CancellationFlag`` and are awaited through a ``BlockingBatch``: a waiter that
/// gives up resumes at once, and its unstarted jobs are skipped. Why not Dispatch: the
/// DesignDecisions article, "Why a pool of its own for blocking work".
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

    /// Submits a job: `body` runs on a pool thread unless `flag` is set before a thread takes it;
    /// `complete` follows it (or stands for it when skipped) once the thread counts as free again;
    /// `dropped` stands for both when no thread could be started at all. Wait for jobs with a
    /// ``BlockingBatch``, the package's one waiter.
    package func submit(
        flag: CancellationFlag, body: @escaping @Sendable () -> Void,
        complete: @escaping @Sendable () -> Void = {}, dropped: @escaping @Sendable () -> Void = {}
    ) {
        let id = state.withLock { $0.makeID() }
        submit(BlockingPoolState.Job(id: id, flag: flag, body: body, drop: dropped, complete: complete))
    }

    /// Removes the jobs still queued under `flag`, whose waiter gave up, so they hold no place in
    /// the queue (they would be skipped when their turn came).
    package func discardQueued(flaggedBy flag: CancellationFlag) {
        _ = state.withLock { $0.removeQueued(flaggedBy: flag) }
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
