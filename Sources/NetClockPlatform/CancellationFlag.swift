import Synchronization

/// A one-way flag that asks blocking work to stop early: set once by whoever gave up on the work
/// (a cancelled task, a sync that has enough sources), polled by the thread doing it between
/// bounded waits (see ``CancellableWait/slice``).
package final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Creates a flag that is not set.
    package init() {}

    /// Whether the work should stop.
    package var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Asks the work to stop; setting it again does nothing.
    package func cancel() { flag.store(true, ordering: .releasing) }
}
