import NetClockPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread that somebody will wait for: the loopback servers run their loops on these and
/// ``join()`` them when they stop.
///
/// A handle is a plain value, so it can be kept in sets; join each thread exactly once.
package struct JoinableThread: Hashable, @unchecked Sendable {
    // @unchecked: `pthread_t` is an integer on Linux and a pointer on Darwin; either way it is only
    // an identifier, passed to `pthread_join` and compared.
    private let handle: pthread_t

    /// Starts a thread running `body`.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `pthread_create`.
    package init(_ body: @escaping @Sendable () -> Void) throws(TransportError) {
        switch Syscalls.startThread(body) {
        case .success(let thread): handle = thread
        case .failure(let code): throw .failed("pthread_create", errno: code)
        }
    }

    private init(handle: pthread_t) {
        self.handle = handle
    }

    /// The calling thread, as the handle ``init(_:)`` returned for it.
    package static var current: JoinableThread {
        JoinableThread(handle: ServerSyscalls.currentThread())
    }

    /// Waits for the thread to finish, and frees it.
    package func join() {
        ServerSyscalls.join(handle)
    }
}
