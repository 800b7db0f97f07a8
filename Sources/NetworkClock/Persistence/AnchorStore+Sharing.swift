import NetClockPlatform

/// What lets processes share an ``AnchorStore``'s files: the time-namespace offsets its instants
/// are converted with, and the lock its writers take turns on (the StateFiles article, "Time
/// namespaces" and "Many writers").
extension AnchorStore {
    /// This process's time-namespace offsets, or the error that says they cannot be read.
    func currentOffsets() throws(AnchorStoreError) -> TimeNamespaceOffsets {
        switch namespace() {
        case .success(let offsets): return offsets
        case .failure(let unreadable):
            throw error(
                .timeNamespaceUnavailable,
                "cannot read this process's time-namespace offsets, which the file's instants are "
                    + "converted with: \(unreadable.reason)")
        }
    }

    /// Runs `body` while this process holds the exclusive advisory lock on ``lockPath``: the one
    /// critical section, across processes, of reading the state beside it, merging this process's
    /// result in and writing it back, so that no process's measurement is lost to another's write.
    ///
    /// Taken only around that read-merge-write (never around a sync). The lock file is checked as
    /// the state files are (not a symbolic link, this user's, mode 0600) and created when missing.
    /// - Throws: ``AnchorStoreError/Code/lockTimeout`` when another process held the lock for
    ///   ``lockTimeout``; an unsafe-file code for a refused lock file
    ///   (``AnchorStoreError/isUnsafeFile``); ``AnchorStoreError/Code/writeFailed`` when it cannot
    ///   be created or locked; and whatever `body` throws.
    @available(*, noasync, message: "waits for a file lock; run it on the blocking pool")
    package func withExclusiveAccess<T>(_ body: () throws(AnchorStoreError) -> T) throws(AnchorStoreError)
        -> T
    {
        let lock: FileSystem.PrivateLock
        switch FileSystem.lockPrivateFile(atPath: lockPath, timeout: lockTimeout) {
        case .success(let taken): lock = taken
        case .failure(.refused(let refusal)): throw AnchorStoreError(refusal, file: lockPath)
        case .failure(.failed(let failure)):
            throw AnchorStoreError(code: .writeFailed, reason: failure.reason, path: lockPath)
        case .failure(let timedOut):
            throw AnchorStoreError(code: .lockTimeout, reason: timedOut.reason, path: lockPath)
        }
        let result = Result { () throws(AnchorStoreError) in try body() }
        lock.release()
        return try result.get()
    }
}
