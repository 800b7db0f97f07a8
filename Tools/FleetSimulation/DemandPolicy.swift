import NetClockPlatform
import NetworkClock

/// `demand`: the library's demand-driven refresh (``NetworkClock/RefreshPolicy/demand(maximumBound:)``
/// with the model's need), started at each launch (`clock.start()`, nothing else) and running while
/// the app's process runs. Every decision is the library's: the launch rule of
/// `BackgroundRefresh.initialDelay(for:)` (``RefreshSchedule/timeWithin(_:boundAfter:)`` on
/// ``NetworkClock/neededBound(after:)``, a sync at once when the restored anchor does not meet
/// the need), after each sync ``RefreshSchedule/nextDelay(afterSuccess:need:boundAfter:using:)``
/// on the same bound, and the lifecycle monitor's ``RefreshSchedule/delay(reactingTo:in:using:)``.
package final class DemandPolicy: LibraryPolicy {
    /// `demand`.
    package let name = "demand"
    /// The library as the app runs it.
    package let app: LibraryApp
    private var refresh: LibraryRefresh
    private var launchedAt = -Double.infinity

    /// The policy on the library configured as `app` is (a need in its refresh policy).
    package init(app: LibraryApp) {
        self.app = app
        self.refresh = LibraryRefresh(policy: app.configuration.refresh)
    }

    /// The need the library is configured with.
    private var need: Duration { app.configuration.refresh.maximumBound ?? .zero }

    /// A launch starts the clock (`start()`); an exit stops it; a resume or a network change may
    /// bring the next sync forward.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        guard case .launch = event else { return refresh.hear(event, app: app, in: run) }
        app.launch(on: run.device)
        refresh.launch(policy: app.configuration.refresh)
        launchedAt = run.device.now
        guard let clock = app.facade else { return }
        let delay = RefreshSchedule.timeWithin(need, boundAfter: clock.neededBound(after:)) ?? .zero
        wake(after: delay, in: run)
    }

    /// The sync's next answer, or the next scheduled sync.
    package var nextAction: Double? { app.nextAnswer ?? refresh.due }

    /// Gives a sync's answer and schedules the next as the library does, or starts the scheduled
    /// sync.
    package func act(in run: PolicyRun) {
        guard app.isSyncing else {
            refresh.due = nil
            startSync(in: run, reason: reason(in: run))
            refresh.lastRequest = run.device.now
            return
        }
        guard app.answer(on: run.device), let clock = app.facade else { return }
        let (delay, _) = refresh.schedule.nextDelay(
            afterSuccess: true, need: need, boundAfter: clock.neededBound(after:), using: &run.random)
        wake(after: delay, in: run)
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
        refresh.due = LibraryRefresh.time(after: delay, in: run)
    }
}
