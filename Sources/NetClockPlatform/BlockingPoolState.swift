import Dispatch

/// The bookkeeping of ``BlockingPool`` as a plain value: a FIFO queue of jobs, the threads alive,
/// which of them are busy and which are parked idle. Every decision (start a thread, hand a job to a
/// parked one, queue it, let an idle thread end) is made here under the pool's lock; the pool only
/// acts on the answer, outside the lock.
struct BlockingPoolState {
    /// One piece of blocking work.
    struct Job: Sendable {
        /// Identifies the job.
        var id: UInt64
        /// Set when nobody waits for the job any more; a job whose flag is set is never started.
        var flag: CancellationFlag
        /// The work (it polls `flag` itself once running).
        var body: @Sendable () -> Void
        /// Called instead of `body` when the pool cannot run the job (no thread could be started).
        var drop: @Sendable () -> Void
        /// Called after `body` (or instead of it, when cancelled) once the thread counts as about to
        /// take its next job, so that work submitted in reaction (by the waiter it resumes) reuses
        /// this thread rather than starting another.
        var complete: @Sendable () -> Void = {}
    }

    /// A pool thread parked idle: it waits on its own semaphore for a job handed to it.
    final class Worker: Sendable {
        /// Signalled once for each job handed to this worker.
        let wakeUp = DispatchSemaphore(value: 0)
        init() {}
    }

    /// What a submission led to.
    enum Submission {
        /// The job waits in the queue.
        case queued
        /// The job was given to this parked worker; signal it.
        case handedOff(Worker)
        /// Start a new thread whose first job this is.
        case startThread(Job)
        /// The job's flag was already set; nothing runs.
        case discarded
    }

    /// The most threads alive at once.
    let maximumThreads: Int
    /// Threads alive (running a job, about to, or parked).
    private(set) var threads = 0
    /// The most threads ever alive at once.
    private(set) var peakThreads = 0
    /// Jobs waiting for a thread, oldest first, from `head` on.
    private var queue: [Job?] = []
    private var head = 0
    /// Jobs waiting (cancelled ones that are still queued included).
    private var queuedCount = 0
    /// Parked workers, most recently parked last (reused first, so the others can time out).
    private var parked: [ObjectIdentifier: Worker] = [:]
    private var parkOrder: [ObjectIdentifier] = []
    /// Threads that finished a job and are about to look for the next (they take queued jobs
    /// without parking).
    private var finishing = 0
    /// Jobs handed to parked workers that have not picked them up yet.
    private var handOffs: [ObjectIdentifier: Job] = [:]
    private var nextID: UInt64 = 0

    init(maximumThreads: Int) {
        self.maximumThreads = max(1, maximumThreads)
    }

    /// Jobs waiting for a thread.
    var queued: Int { queuedCount }
    /// Threads parked idle.
    var idle: Int { parked.count }

    /// A new job identifier.
    mutating func makeID() -> UInt64 {
        nextID &+= 1
        return nextID
    }

    /// Decides where a new job goes: to the most recently parked worker, to a new thread while
    /// below the cap, else to the back of the queue.
    mutating func submit(_ job: Job) -> Submission {
        if job.flag.isCancelled { return .discarded }
        if let key = parkOrder.popLast(), let worker = parked.removeValue(forKey: key) {
            handOffs[key] = job
            return .handedOff(worker)
        }
        if threads < maximumThreads && queuedCount >= finishing {
            threads += 1
            peakThreads = max(peakThreads, threads)
            return .startThread(job)
        }
        queue.append(job)
        queuedCount += 1
        return .queued
    }

    /// What to do with a job whose new thread could not be started.
    enum Retry {
        /// Hand it to this parked worker; signal it.
        case handedOff(Worker)
        /// It waits at the front of the queue for a busy thread.
        case queued
        /// No thread is alive to run it: drop it.
        case drop(Job)
    }

    /// A new thread could not be started for `job`: hand it to a worker parked meanwhile, or queue
    /// it at the front when another thread is alive to run it; otherwise it is dropped.
    mutating func threadFailedToStart(_ job: Job) -> Retry {
        threads -= 1
        if let key = parkOrder.popLast(), let worker = parked.removeValue(forKey: key) {
            handOffs[key] = job
            return .handedOff(worker)
        }
        guard threads > 0 else { return .drop(job) }
        if head > 0 {
            head -= 1
            queue[head] = job
        } else {
            queue.insert(job, at: 0)
        }
        queuedCount += 1
        return .queued
    }

    /// A thread has finished its job's work and is about to complete it and look for the next.
    mutating func beginFinishing() {
        finishing += 1
    }

    /// The next job for a thread (`afterJob`: one that called ``beginFinishing()``), skipping
    /// cancelled ones; nil parks `worker` (it must then wait on its semaphore).
    mutating func next(for worker: Worker, afterJob: Bool) -> Job? {
        if afterJob { finishing -= 1 }
        while head < queue.count {
            let job = queue[head]
            queue[head] = nil
            head += 1
            guard let job else { continue }
            queuedCount -= 1
            compactIfNeeded()
            if job.flag.isCancelled { continue }
            return job
        }
        compactIfNeeded()
        let key = ObjectIdentifier(worker)
        parked[key] = worker
        parkOrder.append(key)
        return nil
    }

    /// The job handed to `worker` after its semaphore was signalled.
    mutating func takeHandOff(for worker: Worker) -> Job? {
        handOffs.removeValue(forKey: ObjectIdentifier(worker))
    }

    /// A parked worker's wait timed out: it ends (true) unless a job was handed to it meanwhile.
    mutating func retire(_ worker: Worker) -> Bool {
        let key = ObjectIdentifier(worker)
        guard parked.removeValue(forKey: key) != nil else { return false }
        parkOrder.removeAll { $0 == key }
        threads -= 1
        return true
    }

    /// Removes every queued job whose flag is `flag` (their waiter gave up); returns how many.
    mutating func removeQueued(flaggedBy flag: CancellationFlag) -> Int {
        var removed = 0
        for index in head..<queue.count where queue[index]?.flag === flag {
            queue[index] = nil
            removed += 1
        }
        queuedCount -= removed
        compactIfNeeded()
        return removed
    }

    private mutating func compactIfNeeded() {
        if queuedCount == 0 {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }
}
