/// `lifecycle`: an app that syncs the library's clock with one request (one address, one sample)
/// at each of five callbacks: launch, return to the foreground, resume, network change and boot
/// (the last three are system broadcasts, delivered whether or not the app is running). It reads
/// the library's clock, so its `now()` has a bound.
package final class LifecyclePolicy: FleetPolicy {
    /// `lifecycle`.
    package let name = "lifecycle"
    private let app: LibraryApp

    /// The policy on the library configured as `app` is (one request a sync).
    package init(app: LibraryApp) {
        self.app = app
    }

    /// Syncs at each callback; a launch starts the app's clock, an exit ends it.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        switch event {
        case .launch:
            app.launch(on: run.device)
            sync(in: run, reason: "launch")
        case .foreground: sync(in: run, reason: "foreground")
        case .suspend: sync(in: run, reason: "resume")
        case .networkChange: sync(in: run, reason: "network")
        case .reboot:
            if run.device.previousBootEnd != nil { app.reboot() }
            sync(in: run, reason: "boot")
        case .exit: app.exit()
        case .background: break
        }
    }

    /// When the next reply arrives.
    package var nextAction: Double? { app.nextAnswer }

    /// A reply arrives: its time is offered to the clock and saved.
    package func act(in run: PolicyRun) {
        app.answer(on: run.device)
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
    }
}
