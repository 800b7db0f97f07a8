import Dispatch

/// Runs blocking socket work (a burst waits in `poll(2)`) on a Dispatch worker thread, so it never
/// occupies one of Swift concurrency's few cooperative threads.
enum BlockingWork {
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: body())
            }
        }
    }
}
