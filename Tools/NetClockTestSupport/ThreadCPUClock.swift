#if canImport(Glibc)
    import Glibc
#endif

/// One thread's CPU-time clock (`pthread_getcpuclockid`), readable from any thread of the process
/// while that thread lives: the CPU one case's client thread used, whatever else runs beside it
/// (``ServerSyscalls/processCPUTime()`` counts every thread together).
package struct ThreadCPUClock: Sendable, Hashable {
    #if os(Linux)
        private let id: clockid_t

        /// The calling thread's clock, or nil where the platform gives none.
        package static func current() -> ThreadCPUClock? {
            var id = clockid_t()
            guard pthread_getcpuclockid(pthread_self(), &id) == 0 else { return nil }
            return ThreadCPUClock(id: id)
        }

        /// The CPU time the thread has used, or nil once it has ended.
        package var time: Duration? {
            var spec = timespec()
            guard clock_gettime(id, &spec) == 0 else { return nil }
            return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
        }
    #else
        package static func current() -> ThreadCPUClock? { nil }
        package var time: Duration? { nil }
    #endif
}
