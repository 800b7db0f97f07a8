// Starting the detached threads of ``BlockingPool`` and ``RelativeTimer``: the only place in the
// library that creates threads.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Detached POSIX threads with a small stack, for the package's own thread owners.
enum PoolThread {
    /// The stack of each thread: bursts, DNS lookups and file writes need little.
    static let stackSize = 512 * 1024

    /// Starts a detached thread running `body`; false if the system refused (`EAGAIN`).
    static func startDetached(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        _ = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        _ = pthread_attr_setstacksize(&attributes, stackSize)
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
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(argument).release()
            return false
        }
        return true
    }
}
