/// `kronos`: Kronos's sync at each launch, 20 requests (4 samples to each of up to 5 addresses,
/// sent back to back). Its clock has time from the first reply and is kept across launches in the
/// same boot (Kronos stores it with the uptime); it has no bound.
package final class KronosPolicy: FleetPolicy {
    /// `kronos`.
    package let name = "kronos"
    /// Addresses and samples a sync asks.
    static let addresses = 5
    static let samples = 4
    /// The stored clock, for this boot.
    private var clock: UptimeClock?
    private var reply: (time: Double, outcome: SyncOutcome)?

    /// A fresh install.
    package init() {}

    /// Syncs at each launch; a reboot voids the stored clock.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        switch event {
        case .launch:
            let outcome = SyncOutcome(
                addresses: Self.addresses, samples: Self.samples, spacing: 0, model: run.model,
                random: &run.random)
            run.sync(outcome, reason: "launch")
            reply = (run.device.now + outcome.firstReply, outcome)
        case .reboot:
            clock = nil
            reply = nil
        case .exit, .background, .foreground, .suspend, .networkChange: break
        }
    }

    /// When the first reply arrives.
    package var nextAction: Double? { reply?.time }

    /// The first reply sets the clock.
    package func act(in run: PolicyRun) {
        if let outcome = reply?.outcome { clock = UptimeClock(outcome, on: run.device) }
        reply = nil
    }

    /// The clock's reading, if it has time (only read while the app runs).
    package func reading(in run: PolicyRun) -> Reading? { clock?.reading(on: run.device) }

    /// The clock's readings.
    package func readings(over seconds: Double, in run: PolicyRun) -> ReadingSpan? {
        clock?.readings(over: seconds, on: run.device)
    }
}
