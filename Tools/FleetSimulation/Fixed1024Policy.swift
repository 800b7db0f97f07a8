import NetClockPlatform
import NetworkClock

/// `fixed1024`: the library's fixed refresh, as the README used it before issue 43:
/// `try await clock.sync()` at each launch, then `clock.start()`, which syncs every ``NetworkClock/RefreshPolicy/interval``
/// (1024 s, jittered ±25 %) while the app's process runs, background included. The delays are the
/// library's: ``RefreshSchedule/nextDelay(afterSuccess:using:)``, the launch rule of
/// `BackgroundRefresh.initialDelay(for:)` (the interval less the anchor's age), and the lifecycle
/// monitor's ``RefreshSchedule/delay(reactingTo:in:using:)``.
package final class Fixed1024Policy: LibraryPolicy {
    /// `fixed1024`.
    package let name = "fixed1024"
    /// The library as the app runs it.
    package let app: LibraryApp
    private var refresh: LibraryRefresh
    private var started = false

    /// The policy on the library configured as `app` is (the defaults).
    package init(app: LibraryApp) {
        self.app = app
        self.refresh = LibraryRefresh(policy: app.configuration.refresh)
    }

    /// A launch syncs (the README's `sync()`); an exit stops the refresh; a resume or a network
    /// change may bring the next sync forward.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        guard case .launch = event else { return refresh.hear(event, app: app, in: run) }
        app.launch(on: run.device)
        refresh.launch(policy: app.configuration.refresh)
        started = false
        sync(in: run, reason: "launch")
    }

    /// The sync's next answer, or the next scheduled sync.
    package var nextAction: Double? { app.nextAnswer ?? refresh.due }

    /// Gives a sync's answer (the first one's end is `start()`), or starts the scheduled sync.
    package func act(in run: PolicyRun) {
        guard app.isSyncing else {
            refresh.due = nil
            sync(in: run, reason: "scheduled")
            return
        }
        guard app.answer(on: run.device), app.process != nil else { return }
        let delay: Duration
        if started {
            delay = refresh.schedule.nextDelay(afterSuccess: true, using: &run.random)
        } else {
            started = true
            // `BackgroundRefresh.initialDelay(for:)` without a need: the interval less the age.
            let estimate = app.process?.now()
            delay =
                estimate.map {
                    $0.source == .restored ? .zero : max(.zero, refresh.schedule.policy.interval - $0.age)
                }
                ?? .zero
        }
        refresh.due = LibraryRefresh.time(after: delay, in: run)
    }

    /// A sync now, for `reason`, counted from now for the lifecycle monitor.
    private func sync(in run: PolicyRun, reason: String) {
        startSync(in: run, reason: reason)
        refresh.lastRequest = run.device.now
    }
}
