import NetClockPlatform
import NetworkClock

/// `fixed1024`: the library's refresh today, as the README uses it: `try await clock.sync()` at
/// each launch, then `clock.start()`, which syncs every ``NetworkClock/RefreshPolicy/interval``
/// (1024 s, jittered ±25 %) while the app's process runs, background included. The delays are the
/// library's: ``RefreshSchedule/nextDelay(afterSuccess:using:)`` and the launch rule of
/// `BackgroundRefresh.initialDelay(for:)` (the interval less the anchor's age).
package final class Fixed1024Policy: FleetPolicy {
    /// `fixed1024`.
    package let name = "fixed1024"
    private let app: LibraryApp
    private var schedule: RefreshSchedule
    private var reply: (time: Double, outcome: SyncOutcome)?
    private var due: Double?
    private var started = false

    /// The policy on the library configured as `app` is (the defaults).
    package init(app: LibraryApp) {
        self.app = app
        self.schedule = RefreshSchedule(policy: app.configuration.refresh)
    }

    /// A launch syncs (the README's `sync()`); an exit stops the refresh.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        switch event {
        case .launch:
            app.launch(on: run.device)
            schedule = RefreshSchedule(policy: app.configuration.refresh)
            started = false
            sync(in: run, reason: "launch")
        case .exit:
            app.exit()
            (reply, due) = (nil, nil)
        case .reboot:
            if let old = run.device.previousBootEnd { app.reboot(from: old) }
        case .background, .foreground, .suspend, .networkChange: break
        }
    }

    /// The sync's end, or the next scheduled sync.
    package var nextAction: Double? { reply?.time ?? due }

    /// Ends a sync (the first one's end is `start()`), or starts the scheduled one.
    package func act(in run: PolicyRun) {
        guard let reply else {
            due = nil
            sync(in: run, reason: "scheduled")
            return
        }
        self.reply = nil
        app.offer(reply.outcome, on: run.device)
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
        reply = (run.device.now + outcome.duration, outcome)
    }
}
