// An exclusive advisory lock on a private lock file beside a state file, so that processes sharing
// a state file take turns at its read-merge-write. The lock file is checked as every state file is
// (`FileSystem.Refusal`): never a symbolic link, owned by this user, mode 0600.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#else
#endif

extension FileSystem {
    /// An exclusive `flock` on an open lock file, held until ``release()`` (closing the descriptor
    /// releases it; so does the process's exit, however it ends).
    package struct PrivateLock: ~Copyable, Sendable {
        /// The locked file's descriptor.
        private let descriptor: Int32

        fileprivate init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Releases the lock and closes the file.
        package consuming func release() {
            Syscalls.close(descriptor)
            discard self
        }

        deinit {
            Syscalls.close(descriptor)
        }
    }

    /// Why a lock could not be taken.
    package enum LockError: Error, Sendable, Equatable {
        /// The lock file, or a directory above it, is not private to this user.
        case refused(Refusal)
        /// A call failed.
        case failed(Failure)
        /// Another process held the lock for the whole timeout.
        case timedOut(path: String, after: Duration)

        /// A sentence for people.
        package var reason: String {
            switch self {
            case .refused(let refusal): return refusal.reason
            case .failed(let failure): return failure.reason
            case .timedOut(let path, let after):
                return
                    "another process held the lock \(path) for \(after.secondsDouble) s, the longest this one waits"
            }
        }
    }

    /// The flags a lock file is opened with: created when missing, never through a final symbolic
    /// link, never waiting on a FIFO or a device, never a controlling terminal, never inherited.
    private static let lockOpenFlags = O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC

    /// How long a lock attempt waits between two tries while another process holds the lock.
    static let lockRetryInterval: Duration = .milliseconds(2)

    /// Takes an exclusive advisory lock (`flock`) on the private file at `path`, creating it (mode
    /// 0600, and its missing directories 0700) when absent, waiting at most `timeout` for another
    /// holder to release it.
    ///
    /// The directories are checked first, then the path with `lstat` (an existing lock file must
    /// be a regular file of this user with no permission bits for others), then the opened file
    /// with `fstat` again (it may have been replaced in between). The file is never removed: a
    /// lock file that comes and goes lets two processes hold locks on two different files.
    package static func lockPrivateFile(atPath path: String, timeout: Duration) -> Result<
        PrivateLock, LockError
    > {
        if let failure = createDirectories(atPath: directoryName(of: path), mode: 0o700) {
            return .failure(.failed(failure))
        }
        switch checkPrivateDirectories(of: path) {
        case .refused(let refusal)?: return .failure(.refused(refusal))
        case .failed(let failure)?: return .failure(.failed(failure))
        case nil: break
        }
        var before = stat()
        switch Syscalls.nothingOrErrno({ lstat(path, &before) }) {
        case .success:
            if let refusal = refusal(ofFile: before, at: path) { return .failure(.refused(refusal)) }
        case .failure(.noSuchFileOrDirectory): break
        case .failure(let code):
            return .failure(.failed(Failure(operation: "inspect", path: path, code: code)))
        }
        let fd: Int32
        switch Syscalls.valueOrErrno({ open(path, lockOpenFlags, mode_t(0o600)) }) {
        case .success(let opened): fd = opened
        case .failure(.tooManySymbolicLinkLevels):
            return .failure(.refused(Refusal(path: path, problem: .symbolicLink)))
        case .failure(let code): return .failure(.failed(Failure(operation: "open", path: path, code: code)))
        }
        let lock = PrivateLock(descriptor: fd)
        var after = stat()
        if case .failure(let code) = Syscalls.nothingOrErrno({ fstat(fd, &after) }) {
            return .failure(.failed(Failure(operation: "inspect", path: path, code: code)))
        }
        if let refusal = refusal(ofFile: after, at: path) { return .failure(.refused(refusal)) }
        let deadline = Syscalls.clockTime(.monotonic) + timeout
        while true {
            switch Syscalls.nothingOrErrno({ flock(fd, LOCK_EX | LOCK_NB) }) {
            case .success: return .success(lock)
            case .failure(.wouldBlock):
                let now = Syscalls.clockTime(.monotonic)
                guard now < deadline else { return .failure(.timedOut(path: path, after: timeout)) }
                Syscalls.sleep(min(lockRetryInterval, deadline - now))
            case .failure(let code):
                return .failure(.failed(Failure(operation: "lock", path: path, code: code)))
            }
        }
    }
}
