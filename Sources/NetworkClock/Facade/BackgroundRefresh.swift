import Synchronization

/// The background refresh behind ``NetworkClock/start()``: one task that sleeps on its clock,
/// syncs, and schedules the next sync (``RefreshSchedule``: jittered, backing off after failures).
/// It holds its clock weakly, so an abandoned clock's loop ends.
final class BackgroundRefresh: Sendable {
    private let sleeper: any Clock<Duration>
    private let state: Mutex<(task: Task<Void, Never>?, schedule: RefreshSchedule)>

    /// A stopped refresh that will sleep on `sleeper` and follow `policy`.
    init(sleeper: any Clock<Duration>, policy: NetworkClock.RefreshPolicy) {
        self.sleeper = sleeper
        self.state = Mutex((nil, RefreshSchedule(policy: policy)))
    }

    /// Whether the loop is running.
    var isRunning: Bool { state.withLock { $0.task != nil } }

    /// Starts the loop for `clock` after `initialDelay`, unless it is running.
    func start(_ clock: NetworkClock, initialDelay: Duration) {
        state.withLock { state in
            guard state.task == nil else { return }
            let owner = WeakReference(clock)
            let sleeper = sleeper
            state.task = Task { [self] in
                await self.loop(owner, initialDelay: initialDelay, sleeper: sleeper)
            }
        }
    }

    /// Cancels the loop; a sync in progress ends within one poll slice and has no successor.
    func stop() {
        state.withLock { state in
            state.task?.cancel()
            state.task = nil
        }
    }

    /// The delay before the first background sync of `clock`: with a need, how long its bound
    /// stays within it (none when it does not meet it now); else none without an anchor or with
    /// only a restored one, and otherwise what is left of the interval since the anchor was taken.
    static func initialDelay(for clock: NetworkClock) -> Duration {
        let policy = clock.configuration.refresh
        if let need = policy.maximumBound {
            return RefreshSchedule.timeWithin(need, boundAfter: clock.neededBound(after:)) ?? .zero
        }
        guard let estimate = clock.now(), estimate.source != .restored else { return .zero }
        return max(.zero, policy.interval - estimate.age)
    }

    /// A reference that does not keep the clock alive.
    private struct WeakReference: Sendable {
        weak var value: NetworkClock?
        init(_ value: NetworkClock) { self.value = value }
    }

    private func loop(_ owner: WeakReference, initialDelay: Duration, sleeper: any Clock<Duration>) async {
        var generator = SystemRandomNumberGenerator()
        var delay = initialDelay
        while !Task.isCancelled {
            if delay > .zero {
                do {
                    try await sleeper.sleep(for: delay)
                } catch {
                    return
                }
            }
            // Hold the clock only while syncing, so an abandoned clock can be released.
            guard let next = await round(owner, using: &generator) else { return }
            delay = next
        }
    }

    /// One round: sync, then the delay before the next; nil once the clock is gone or stopped.
    private func round(_ owner: WeakReference, using generator: inout SystemRandomNumberGenerator) async
        -> Duration?
    {
        guard let clock = owner.value else { return nil }
        let succeeded: Bool
        do {
            _ = try await clock.sync()
            succeeded = true
        } catch {
            succeeded = false
        }
        // Stopped while syncing: not a failure to back off from; the loop ends.
        if Task.isCancelled { return nil }
        let need = clock.configuration.refresh.maximumBound
        let (next, failures, needNotMet) = state.withLock { state in
            guard let need else {
                let delay = state.schedule.nextDelay(afterSuccess: succeeded, using: &generator)
                return (delay, state.schedule.consecutiveFailures, false)
            }
            let (delay, needNotMet) = state.schedule.nextDelay(
                afterSuccess: succeeded, need: need, boundAfter: clock.neededBound(after:), using: &generator)
            return (delay, state.schedule.consecutiveFailures, needNotMet)
        }
        if needNotMet, let need, let bound = clock.now()?.errorBound {
            clock.emit(.needNotMet(bound: bound, need: need))
        }
        if !succeeded || needNotMet { clock.emit(.backoff(delay: next, consecutiveFailures: failures)) }
        return next
    }
}
