// Starting the detached threads of ``BlockingPool`` and ``RelativeTimer``, through the one pthread
// wrapper, `Syscalls.startThread`.

/// Detached POSIX threads with a small stack, for the package's own thread owners.
enum PoolThread {
    /// The stack of each thread: bursts, DNS lookups and file writes need little.
    static let stackSize = 512 * 1024

    /// Starts a detached thread running `body`; false if the system refused (`EAGAIN`).
    static func startDetached(_ body: @escaping @Sendable () -> Void) -> Bool {
        if case .success = Syscalls.startThread(detached: true, stackSize: stackSize, body) { return true }
        return false
    }
}
