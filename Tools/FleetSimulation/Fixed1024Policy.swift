import NetClockPlatform
import NetworkClock

/// `fixed1024`: the library's fixed refresh, as the README used it before issue 43:
/// `try await clock.sync()` at each launch, then `clock.start()`, which syncs every ``NetworkClock/RefreshPolicy/interval``
/// (1024 s, jittered ±25 %) while the app's process runs, background included. The delays are the
/// library's: ``RefreshSchedule/nextDelay(afterSuccess:using:)``, the launch rule of
/// `BackgroundRefresh.initialDelay(for:)` (the interval less the anchor's age), and the lifecycle
/// monitor's ``RefreshSchedule/delay(reactingTo:in:using:)``.
package final class Fixed1024Policy: FleetPolicy {
    /// `fixed1024`.
    package let name = "fixed1024"
    private let app: LibraryApp
    private var schedule: RefreshSchedule
    private var due: Double?
    private var started = false
    private var lastRequest: Double?

    /// The policy on the library configured as `app` is (the defaults).
    package init(app: LibraryApp) {
        self.app = app
        self.schedule = RefreshSchedule(policy: app.configuration.refresh)
    }

    /// A launch syncs (the README's `sync()`); an exit stops the refresh; a resume or a network
    /// change may bring the next sync forward.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        switch event {
        case .launch:
            app.launch(on: run.device)
            schedule = RefreshSchedule(policy: app.configuration.refresh)
            (started, lastRequest) = (false, nil)
            sync(in: run, reason: "launch")
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
            self.due = min(due, run.device.now + delay.secondsDouble / (1 + run.device.ppm * 1e-6))
        case .background, .foreground: break
        }
    }

    /// The sync's next answer, or the next scheduled sync.
    package var nextAction: Double? { app.nextAnswer ?? due }

    /// Gives a sync's answer (the first one's end is `start()`), or starts the scheduled sync.
    package func act(in run: PolicyRun) {
        guard app.isSyncing else {
            due = nil
            sync(in: run, reason: "scheduled")
            return
        }
        guard app.answer(on: run.device), app.process != nil else { return }
        let delay: Duration
        if started {
            delay = schedule.nextDelay(afterSuccess: true, using: &run.random)
        } else {
            started = true
            // `BackgroundRefresh.initialDelay(for:)` without a need: the interval less the age.
            let estimate = app.process?.now()
            delay =
                estimate.map {
                    $0.source == .restored ? .zero : max(.zero, schedule.policy.interval - $0.age)
                }
                ?? .zero
        }
        due = run.device.now + delay.secondsDouble / (1 + run.device.ppm * 1e-6)
    }

    /// The library clock's reading.
    package func reading(in run: PolicyRun) -> Reading? { app.reading(on: run.device) }

    /// The library clock's readings.
    package func readings(over seconds: Double, in run: PolicyRun) -> ReadingSpan? {
        app.readings(over: seconds, need: run.model.need, on: run.device)
    }

    private func sync(in run: PolicyRun, reason: String) {
        let outcome = app.outcome(model: run.model, random: &run.random)
        run.sync(outcome, reason: reason)
        app.startSync(outcome, on: run.device)
        lastRequest = run.device.now
    }
}
