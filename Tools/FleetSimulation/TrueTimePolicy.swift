/// `truetime`: TrueTime.swift's 20 requests (4 samples to each of up to 5 addresses) at launch,
/// every 512 s while the app is active (a timer that fires only in the foreground: one that came due
/// in the background fires on the return), and at each network change while the app runs. Its
/// clock lives in the process (time from the first reply) and has no bound.
package final class TrueTimePolicy: FleetPolicy {
    /// `truetime`.
    package let name = "truetime"
    /// The poll interval.
    static let interval = 512.0
    private var clock: UptimeClock?
    private var reply: (time: Double, outcome: SyncOutcome)?
    private var due: Double?
    private var isForeground = false

    /// A fresh install.
    package init() {}

    /// Syncs at launch, on returning to the foreground when a poll is overdue, and at network
    /// changes while the app runs; the clock ends with the process.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        isForeground = run.isForeground
        switch event {
        case .launch:
            sync(in: run, reason: "launch")
        case .foreground:
            if let due, due <= run.device.now { sync(in: run, reason: "poll") }
        case .networkChange:
            if run.isRunning { sync(in: run, reason: "network") }
        case .exit, .reboot:
            (clock, reply, due) = (nil, nil, nil)
        case .background, .suspend: break
        }
    }

    /// The first reply, or the poll timer while in the foreground.
    package var nextAction: Double? {
        let poll = isForeground ? due : nil
        switch (reply?.time, poll) {
        case (let reply?, let poll?): return min(reply, poll)
        case (let reply?, nil): return reply
        case (nil, let poll): return poll
        }
    }

    /// Sets the clock from a reply, or polls.
    package func act(in run: PolicyRun) {
        if let reply, reply.time <= run.device.now {
            clock = UptimeClock(reply.outcome, on: run.device)
            self.reply = nil
        } else {
            sync(in: run, reason: "poll")
        }
    }

    /// The clock's reading, if it has time.
    package func reading(in run: PolicyRun) -> Reading? { clock?.reading(on: run.device) }

    /// The clock's readings.
    package func readings(over seconds: Double, in run: PolicyRun) -> ReadingSpan? {
        clock?.readings(over: seconds, on: run.device)
    }

    private func sync(in run: PolicyRun, reason: String) {
        let outcome = SyncOutcome(
            addresses: KronosPolicy.addresses, samples: KronosPolicy.samples, spacing: 0, model: run.model,
            random: &run.random)
        run.sync(outcome, reason: reason)
        reply = (run.device.now + outcome.firstReply, outcome)
        due = run.device.now + Self.interval
    }
}
