import Synchronization

/// Blocking waits cut into bounded slices, so the waiting thread notices within one slice that its
/// work was cancelled. Every slice is a relative `nanosleep`, which keeps working when the wall
/// clock is changed or faked.
package enum CancellableWait {
    /// The longest single wait of blocking work that can be cancelled: the poll interval after which
    /// a cancelled burst or HTTP exchange gives its thread back.
    package static let slice = Duration.milliseconds(50)

    /// Sleeps the calling thread for `duration` (measured on the boot-time clock) in slices of at
    /// most ``slice``, stopping early when `isCancelled` returns true.
    /// - Returns: false when it stopped because of cancellation, true when the time has passed.
    @discardableResult
    package static func sleep(_ duration: Duration, isCancelled: () -> Bool) -> Bool {
        guard duration > .zero else { return !isCancelled() }
        let end = Syscalls.clockTime(.bootTime) + duration
        while true {
            if isCancelled() { return false }
            let left = end - Syscalls.clockTime(.bootTime)
            guard left > .zero else { return true }
            Syscalls.sleep(min(left, slice))
        }
    }
}

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
