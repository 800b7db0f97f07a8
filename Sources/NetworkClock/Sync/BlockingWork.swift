import Foundation
import SNTP

/// Runs blocking socket work (a burst waits in `poll(2)`, `getaddrinfo` may wait on DNS) on a
/// thread of its own.
///
/// Not on Swift concurrency's cooperative threads (one per core), and not on Dispatch's global
/// queues either: on Linux those run only about one blocking item per core at a time, so with two
/// cores two silent servers would keep a third, good one from ever being queried.
enum BlockingWork {
    /// Runs `body` on a new thread and waits for its result without blocking the caller's thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new thread and returns at once.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "NetworkClock blocking I/O"
        thread.stackSize = 512 * 1024
        thread.start()
    }
}
