import Synchronization

/// The background refresh behind ``NetworkClock/start()``: one task that sleeps on its clock,
/// syncs, and schedules the next sync (``RefreshSchedule``: jittered, backing off after failures).
/// On Linux a ``LifecycleMonitor`` runs beside it and may bring the next sync forward
/// (``react(to:of:)``). It holds its clock weakly, so an abandoned clock's loop ends.
final class BackgroundRefresh: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var schedule: RefreshSchedule
        /// Time since the loop's last sync began; nil before its first.
        var sinceLastRequest: (@Sendable () -> Duration)?
        /// The sleep before the next sync, while the loop sleeps.
        var nap: Nap?
        #if os(Linux)
            var monitor: LifecycleMonitor?
        #endif
    }

    /// A sleep that a lifecycle event can shorten: ``delay`` is counted from its start.
    private struct Nap {
        var elapsed: @Sendable () -> Duration
        var delay: Duration
        var sleeping: Task<Void, any Error>
    }

    private let sleeper: any Clock<Duration>
    private let state: Mutex<State>

    /// A stopped refresh that will sleep on `sleeper` and follow `policy`.
    init(sleeper: any Clock<Duration>, policy: NetworkClock.RefreshPolicy) {
        self.sleeper = sleeper
        self.state = Mutex(State(schedule: RefreshSchedule(policy: policy)))
    }

    /// Whether the loop is running.
    var isRunning: Bool { state.withLock { $0.task != nil } }

    /// Starts the loop for `clock` after `initialDelay`, unless it is running, and on Linux the
    /// lifecycle monitor, which reads the kernel's clocks through `readings` (nil: no monitor, for
    /// tests whose manual clocks a host's route change must not move).
    func start(
        _ clock: NetworkClock, initialDelay: Duration,
        lifecycleReadings readings: (@Sendable () -> LifecycleReading)? = LifecycleReading.kernel
    ) {
        state.withLock { state in
            guard state.task == nil else { return }
            let owner = WeakReference(clock)
            let sleeper = sleeper
            state.task = Task { [self] in
                await self.loop(owner, initialDelay: initialDelay, sleeper: sleeper)
            }
            #if os(Linux)
                guard let readings else { return }
                state.monitor = LifecycleMonitor.start(readings: readings) { [weak self] event in
                    guard let clock = owner.value else { return }
                    clock.emit(event)
                    self?.react(to: event, of: clock)
                }
            #endif
        }
    }

    /// Cancels the loop; a sync in progress ends within one poll slice and has no successor.
    func stop() {
        state.withLock { state in
            state.task?.cancel()
            state.task = nil
            #if os(Linux)
                state.monitor?.stop()
                state.monitor = nil
            #endif
        }
    }

    #if os(Linux)
        /// The lifecycle monitor while the loop runs (for tests: ``LifecycleMonitor/check()``).
        var lifecycleMonitor: LifecycleMonitor? { state.withLock { $0.monitor } }
    #endif

    /// Brings the next sync forward when `event` calls for one sooner than scheduled
    /// (``RefreshSchedule/delay(reactingTo:in:using:)``). Only a sleeping loop is moved: a sync in
    /// progress already answers the event. A retry after a network change is announced as
    /// ``ClockEvent/backoff(delay:consecutiveFailures:)``.
    func react(to event: ClockEvent, of clock: NetworkClock) {
        var generator = SystemRandomNumberGenerator()
        let estimate = clock.now()
        let anchorAge = estimate.flatMap { $0.source == .restored ? nil : $0.age }
        let retry = state.withLock { state -> (delay: Duration, failures: Int)? in
            guard let nap = state.nap else { return nil }
            let context = RefreshSchedule.LifecycleContext(
                sinceLastRequest: state.sinceLastRequest?(), anchorAge: anchorAge,
                boundAfter: clock.neededBound(after:))
            guard let delay = state.schedule.delay(reactingTo: event, in: context, using: &generator) else {
                return nil
            }
            let elapsed = nap.elapsed()
            guard elapsed + delay < nap.delay else { return nil }
            state.nap?.delay = elapsed + delay
            nap.sleeping.cancel()
            return (delay, state.schedule.consecutiveFailures)
        }
        if case .networkChanged = event, let retry {
            clock.emit(.backoff(delay: retry.delay, consecutiveFailures: retry.failures))
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
            if delay > .zero, !(await nap(for: delay, on: sleeper)) { return }
            // Hold the clock only while syncing, so an abandoned clock can be released.
            guard let next = await round(owner, using: &generator) else { return }
            delay = next
        }
    }

    /// Sleeps `delay` on `sleeper`, or less once ``react(to:of:)`` shortens it: false when stopped.
    private func nap(for delay: Duration, on sleeper: any Clock<Duration>) async -> Bool {
        let elapsed = Self.stopwatch(sleeper)
        var target = delay
        while true {
            let remaining = target - elapsed()
            guard remaining > .zero else { return true }
            let sleeping = state.withLock { state in
                let sleeping = Task { try await sleeper.sleep(for: remaining) }
                state.nap = Nap(elapsed: elapsed, delay: target, sleeping: sleeping)
                return sleeping
            }
            let slept = await withTaskCancellationHandler {
                await sleeping.result
            } onCancel: {
                sleeping.cancel()
            }
            // This nap's own record (a stopped loop's must not clear its successor's).
            let shortened = state.withLock { state -> Duration? in
                guard let nap = state.nap, nap.sleeping == sleeping else { return nil }
                state.nap = nil
                return nap.delay
            }
            if Task.isCancelled { return false }
            if case .success = slept { return true }
            // Woken by a lifecycle event: sleep on to the earlier target.
            guard let shortened, shortened < target else { return false }
            target = shortened
        }
    }

    /// Time since now on `clock`, measured each time the result is called.
    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// One round: sync, then the delay before the next; nil once the clock is gone or stopped.
    private func round(_ owner: WeakReference, using generator: inout SystemRandomNumberGenerator) async
        -> Duration?
    {
        guard let clock = owner.value else { return nil }
        let sinceRequest = Self.stopwatch(sleeper)
        state.withLock { $0.sinceLastRequest = sinceRequest }
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
