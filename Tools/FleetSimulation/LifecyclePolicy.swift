/// `lifecycle`: an app that syncs the library's clock with one request (one address, one sample)
/// at each of five callbacks: launch, return to the foreground, resume, network change and boot
/// (the last three are system broadcasts, delivered whether or not the app is running). It reads
/// the library's clock, so its `now()` has a bound.
package final class LifecyclePolicy: LibraryPolicy {
    /// `lifecycle`.
    package let name = "lifecycle"
    /// The library as the app runs it.
    package let app: LibraryApp

    /// The policy on the library configured as `app` is (one request a sync).
    package init(app: LibraryApp) {
        self.app = app
    }

    /// Syncs at each callback; a launch starts the app's clock, an exit ends it.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        switch event {
        case .launch:
            app.launch(on: run.device)
            startSync(in: run, reason: "launch")
        case .foreground: startSync(in: run, reason: "foreground")
        case .suspend: startSync(in: run, reason: "resume")
        case .networkChange: startSync(in: run, reason: "network")
        case .reboot:
            if run.device.previousBootEnd != nil { app.reboot() }
            startSync(in: run, reason: "boot")
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
}
