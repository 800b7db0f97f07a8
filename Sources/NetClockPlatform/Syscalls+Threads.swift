// The pthread calls behind the package's own threads: the detached pool and timer threads
// (``BlockingPool``, ``RelativeTimer``) and the test servers' joinable ones. Kept beside
// Syscalls.swift, under the same platform chain.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// Starts a thread running `body`: its handle, or the error code. A `detached` thread frees
    /// itself when `body` returns (its handle must not be joined); `stackSize`, when given, replaces
    /// the system's default stack size.
    package static func startThread(
        detached: Bool = false, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
    ) -> Result<pthread_t, Errno> {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        // The pthread calls return their error number rather than setting `errno`.
        let initialized = pthread_attr_init(&attributes)
        guard initialized == 0 else { return .failure(Errno(rawValue: initialized)) }
        defer { pthread_attr_destroy(&attributes) }
        if detached { _ = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        if let stackSize { _ = pthread_attr_setstacksize(&attributes, stackSize) }
        let argument = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Glibc)
            var thread = pthread_t()
        #else
            var thread: pthread_t?
        #endif
        let result = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, argument)
        #if canImport(Glibc)
            let started: pthread_t? = result == 0 ? thread : nil
        #else
            let started = result == 0 ? thread : nil
        #endif
        guard let started else {
            Unmanaged<Box>.fromOpaque(argument).release()
            return .failure(result == 0 ? .resourceTemporarilyUnavailable : Errno(rawValue: result))
        }
        return .success(started)
    }
}

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
