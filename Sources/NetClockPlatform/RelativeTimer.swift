import Dispatch
import Synchronization

/// Runs short actions after relative delays on one thread of its own, started on first use.
///
/// Swift's `Task.sleep` and Dispatch's `asyncAfter` never fire under libfaketime (their timers get a
/// bad absolute deadline); a semaphore wait with a relative timeout does, so this is the backstop
/// timer for code that must keep working when the wall clock is faked (the CLI's `sync`). Delays
/// are measured on the boot-time clock. Actions run on the timer's thread and must return quickly
/// (resume a continuation, set a flag).
package final class RelativeTimer: Sendable {
    /// The timer the package uses.
    package static let shared = RelativeTimer()

    /// Identifies a scheduled action, to cancel it.
    package struct Token: Hashable, Sendable {
        fileprivate var id: UInt64
    }

    private struct Entry {
        var due: Duration
        var action: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var isThreadRunning = false
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    /// Creates a timer; its thread starts with the first scheduled action.
    package init() {}

    /// Runs `action` once `delay` has passed, unless cancelled first.
    @discardableResult
    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let due = Syscalls.clockTime(.bootTime) + max(delay, .zero)
        let (token, startThread) = state.withLock { state in
            state.nextID &+= 1
            state.entries[state.nextID] = Entry(due: due, action: action)
            let start = !state.isThreadRunning
            state.isThreadRunning = true
            return (Token(id: state.nextID), start)
        }
        if startThread {
            if !PoolThread.startDetached({ [self] in loop() }) {
                state.withLock { $0.isThreadRunning = false }
            }
        }
        wakeUp.signal()
        return token
    }

    /// Cancels a scheduled action; nothing happens if it has run already.
    package func cancel(_ token: Token) {
        _ = state.withLock { $0.entries.removeValue(forKey: token.id) }
    }

    private func loop() {
        while true {
            let now = Syscalls.clockTime(.bootTime)
            let (due, earliest) = state.withLock { state -> ([@Sendable () -> Void], Duration?) in
                let ready = state.entries.filter { $0.value.due <= now }
                for key in ready.keys { state.entries.removeValue(forKey: key) }
                let order = ready.sorted { $0.value.due < $1.value.due }
                return (order.map(\.value.action), state.entries.values.map(\.due).min())
            }
            for action in due { action() }
            if let earliest {
                let (seconds, attoseconds) = max(earliest - now, .zero).components
                let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
                _ = wakeUp.wait(timeout: .now() + .nanoseconds(max(nanoseconds, 0)))
            } else {
                wakeUp.wait()
            }
        }
    }
}
