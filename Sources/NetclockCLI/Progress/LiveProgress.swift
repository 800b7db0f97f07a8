import NetworkClock
import Synchronization

/// The live status line of one sync round: counts the engine's ``SyncProgress`` events, redraws
/// the line about ten times a second on a ticking task, and erases it when the round is done.
///
/// Events come from the engine's I/O threads and may keep coming after the round returned (bursts
/// still running); once finished, they are ignored.
final class LiveProgress: Sendable {
    private struct State {
        var counts = ProgressCounts()
        var line: StatusLine
        var finished = false
    }

    private let state: Mutex<State>
    private let write: @Sendable (String) -> Void
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// A status line written with `write` (raw bytes to the terminal, no newline added).
    init(line: StatusLine = StatusLine(), write: @escaping @Sendable (String) -> Void) {
        self.state = Mutex(State(line: line))
        self.write = write
        self.start = clock.now
    }

    /// Counts one event (called from any thread).
    func observe(_ event: SyncProgress) {
        state.withLock { state in
            guard !state.finished else { return }
            state.counts.apply(event)
        }
    }

    /// Redraws the line if it is due.
    func tick() {
        let elapsed = clock.now - start
        state.withLock { state in
            guard !state.finished else { return }
            if let bytes = state.line.frame(state.counts.text(elapsed: elapsed), at: elapsed) {
                write(bytes)
            }
        }
    }

    /// Ends the round: erases the line; later events and ticks do nothing.
    func finish() {
        state.withLock { state in
            state.finished = true
            if let bytes = state.line.erase() { write(bytes) }
        }
    }

    /// Runs `body` with an observer feeding a status line written with `write`, or with none when
    /// `write` is nil; the line is erased before this returns.
    static func around<T>(
        writingTo write: (@Sendable (String) -> Void)?, width: Int = 80,
        _ body: (SyncProgressObserver?) async -> T
    ) async -> T {
        guard let write else { return await body(nil) }
        var line = StatusLine()
        line.width = width
        let progress = LiveProgress(line: line, write: write)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: progress.tickInterval)
                progress.tick()
            }
        }
        let result = await body { progress.observe($0) }
        ticker.cancel()
        await ticker.value
        progress.finish()
        return result
    }

    /// How often the ticking task looks at the line: half the minimum interval, so frames come
    /// close to ten a second while ``StatusLine`` keeps them from coming faster.
    var tickInterval: Duration {
        state.withLock { $0.line.minimumInterval / 2 }
    }
}
