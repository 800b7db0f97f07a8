import NetClockPlatform
import NetworkClock

/// `demand`: the library's demand-driven refresh (``NetworkClock/RefreshPolicy/demand(maximumBound:)``
/// with the model's need), started at each launch (`clock.start()`, nothing else) and running while
/// the app's process runs. Every decision is the library's: the launch rule of
/// `BackgroundRefresh.initialDelay(for:)` (``RefreshSchedule/timeWithin(_:boundAfter:)`` on
/// ``NetworkClock/neededBound(after:)``, a sync at once when the restored anchor does not meet
/// the need), after each sync ``RefreshSchedule/nextDelay(afterSuccess:need:boundAfter:using:)``
/// on the same bound, and the lifecycle monitor's ``RefreshSchedule/delay(reactingTo:in:using:)``.
package final class DemandPolicy: FleetPolicy {
    /// `demand`.
    package let name = "demand"
    private let app: LibraryApp
    private var schedule: RefreshSchedule
    private var due: Double?
    private var launchedAt = -Double.infinity
    private var lastRequest: Double?

    /// The policy on the library configured as `app` is (a need in its refresh policy).
    package init(app: LibraryApp) {
        self.app = app
        self.schedule = RefreshSchedule(policy: app.configuration.refresh)
    }

    /// The need the library is configured with.
    private var need: Duration { app.configuration.refresh.maximumBound ?? .zero }

    /// A launch starts the clock (`start()`); an exit stops it; a resume or a network change may
    /// bring the next sync forward.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        switch event {
        case .launch:
            app.launch(on: run.device)
            schedule = RefreshSchedule(policy: app.configuration.refresh)
            (launchedAt, lastRequest) = (run.device.now, nil)
            guard let clock = app.facade else { return }
            let delay = RefreshSchedule.timeWithin(need, boundAfter: clock.neededBound(after:)) ?? .zero
            wake(after: delay, in: run)
        case .exit:
            app.exit()
            due = nil
        case .reboot:
            if run.device.previousBootEnd != nil { app.reboot() }
        case .suspend, .networkChange:
            let since = lastRequest.map { Duration.seconds(run.device.now - $0) }
            guard run.isRunning, let due,
                let delay = app.delay(
                    reactingTo: event, schedule: schedule, sinceLastRequest: since, on: run.device,
                    using: &run.random)
            else { return }
            self.due = min(due, time(after: delay, in: run))
        case .background, .foreground: break
        }
    }

    /// The sync's next answer, or the next scheduled sync.
    package var nextAction: Double? { app.nextAnswer ?? due }

    /// Gives a sync's answer and schedules the next as the library does, or starts the scheduled
    /// sync.
    package func act(in run: PolicyRun) {
        guard app.isSyncing else {
            due = nil
            let outcome = app.outcome(model: run.model, random: &run.random)
            run.sync(outcome, reason: reason(in: run))
            app.startSync(outcome, on: run.device)
            lastRequest = run.device.now
            return
        }
        guard app.answer(on: run.device), let clock = app.facade else { return }
        let (delay, _) = schedule.nextDelay(
            afterSuccess: true, need: need, boundAfter: clock.neededBound(after:), using: &run.random)
        wake(after: delay, in: run)
    }

    /// The library clock's reading.
    package func reading(in run: PolicyRun) -> Reading? { app.reading(on: run.device) }

    /// The library clock's readings.
    package func readings(over seconds: Double, in run: PolicyRun) -> ReadingSpan? {
        app.readings(over: seconds, need: run.model.need, on: run.device)
    }

    /// Why the sync now: at launch (with no time, with a bound a suspend since the anchor took
    /// past the need, or with one that grew past it), or later.
    private func reason(in run: PolicyRun) -> String {
        guard run.device.now == launchedAt else { return "scheduled" }
        guard let clock = app.process, clock.now() != nil else { return "launch (no time)" }
        let suspended = clock.anchorTimeBase.map { $0.suspended < run.device.machine.baseReading.suspended }
        return suspended == true ? "launch (suspended since)" : "launch (bound grown)"
    }

    /// The refresh sleeps `delay` on the boot-time clock: that much exchange-clock time.
    private func wake(after delay: Duration, in run: PolicyRun) {
        due = time(after: delay, in: run)
    }

    /// The true time `delay` of the boot-time clock from now.
    private func time(after delay: Duration, in run: PolicyRun) -> Double {
        run.device.now + delay.secondsDouble / (1 + run.device.ppm * 1e-6)
    }
}
