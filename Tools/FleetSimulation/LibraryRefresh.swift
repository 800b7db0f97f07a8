import NetworkClock

/// The state of the library's refresh loop in the app's process (`clock.start()`): its schedule,
/// the next sync it will make, and when it last sent a request; and what it does on the events it
/// hears besides a launch, alike for every refresh policy.
struct LibraryRefresh {
    /// The library's schedule.
    var schedule: RefreshSchedule
    /// When the next scheduled sync is due, if the loop runs.
    var due: Double?
    /// When the last sync started, for the lifecycle monitor.
    var lastRequest: Double?

    /// A loop not started, on the library's refresh policy.
    init(policy: NetworkClock.RefreshPolicy) {
        schedule = RefreshSchedule(policy: policy)
    }

    /// Restarts the loop in a new process.
    mutating func launch(policy: NetworkClock.RefreshPolicy) {
        schedule = RefreshSchedule(policy: policy)
        lastRequest = nil
    }

    /// Hears `event`, any but a launch: an exit ends the loop and the process; a reboot voids the
    /// anchor; a resume or a network change, which the running library's lifecycle monitor hears,
    /// may bring the next sync forward (``RefreshSchedule/delay(reactingTo:in:using:)``).
    mutating func hear(_ event: ClientEvent.Kind, app: LibraryApp, in run: PolicyRun) {
        switch event {
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
            self.due = min(due, Self.time(after: delay, in: run))
        case .launch, .background, .foreground: break
        }
    }

    /// The true time `delay` of the boot-time clock from now (the loop sleeps on that clock).
    static func time(after delay: Duration, in run: PolicyRun) -> Double {
        run.device.now + delay.secondsDouble / (1 + run.device.ppm * 1e-6)
    }
}
