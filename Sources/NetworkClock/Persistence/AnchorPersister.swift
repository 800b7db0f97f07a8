import ClockCore
import NetClockPlatform
import SNTP
import Synchronization
import TimeValues

/// Writes a clock's anchor to its store in the background, one write at a time, so that callers
/// that must not block (``NetworkClock/ingest(serverTime:requestSent:responseReceived:resolution:server:)``
/// can be called from async code) never do file I/O themselves.
///
/// Requests that arrive while a write runs are folded into one more write after it, which reads
/// the clock's state then: the file always ends with the newest anchor, and writes never overlap.
final class AnchorPersister: Sendable {
    private struct State {
        var isWriting = false
        var isDirty = false
    }

    private let clock: AnchoredClock
    private let store: AnchorStore
    private let pool: BlockingPool
    private let failed: @Sendable (AnchorStoreError) -> Void
    private let state = Mutex(State())

    /// Creates a persister; `failed` hears of every write that failed.
    init(
        clock: AnchoredClock, store: AnchorStore, pool: BlockingPool = .shared,
        failed: @escaping @Sendable (AnchorStoreError) -> Void
    ) {
        self.clock = clock
        self.store = store
        self.pool = pool
        self.failed = failed
    }

    /// Asks for the clock's current state to be written; returns at once.
    func requestWrite() {
        let start = state.withLock { state -> Bool in
            if state.isWriting {
                state.isDirty = true
                return false
            }
            state.isWriting = true
            return true
        }
        guard start else { return }
        let pool = self.pool
        Task.detached { [self] in
            await pool.runToEnd { self.writeUntilClean() }
        }
    }

    /// Writes, then writes again while requests arrived during the previous write.
    private func writeUntilClean() {
        repeat {
            do {
                try clock.save(to: store)
            } catch {
                failed(error)
            }
        } while state.withLock { state -> Bool in
            if state.isDirty {
                state.isDirty = false
                return true
            }
            state.isWriting = false
            return false
        }
    }

    /// Waits until no write is pending (tests use it before reading the file).
    func waitUntilIdle() async {
        while state.withLock({ $0.isWriting }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
