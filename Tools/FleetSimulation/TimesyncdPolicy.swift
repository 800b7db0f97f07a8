/// `timesyncd`: systemd-timesyncd keeping the system clock, which the app reads: one request per
/// poll, the first a second after boot, then every 32 s doubling to 2048 s, all day whether or not
/// the app runs (a poll that came due during a suspend is sent on resume). After a reboot the
/// system clock starts from the RTC, up to half a second off, until the first reply; between polls
/// it drifts at the oscillator's frequency error (the kernel's frequency correction is not modelled,
/// which only overstates its error: 2048 s at 21 ppm is 43 ms). No bound.
package final class TimesyncdPolicy: FleetPolicy {
    /// `timesyncd`.
    package let name = "timesyncd"
    static let minimumPoll = 32.0
    static let maximumPoll = 2048.0
    private var clock: UptimeClock?
    private var next: Double
    private var interval: Double

    /// The daemon as it runs at the start of the simulation on a device booted at `bootedAt`:
    /// its polls since boot are replayed (not counted) and the clock set by the last.
    package init(bootedAt: Double) {
        var time = bootedAt + 1
        var interval = 0.0
        while time + interval < 0 {
            time += interval
            interval = interval == 0 ? Self.minimumPoll : min(interval * 2, Self.maximumPoll)
        }
        self.next = time + interval
        self.interval = interval == 0 ? Self.minimumPoll : min(interval * 2, Self.maximumPoll)
    }

    /// A reboot restarts the daemon and the system clock from the RTC.
    package func handle(_ event: ClientEvent.Kind, in run: PolicyRun) {
        switch event {
        case .reboot:
            clock = UptimeClock(error: run.random.uniform(-0.5, 0.5), on: run.device)
            next = run.device.now + 1
            interval = Self.minimumPoll
        case .launch, .exit, .background, .foreground, .suspend, .networkChange: break
        }
    }

    /// The next poll.
    package var nextAction: Double? { next }

    /// Polls: one request, whose reply sets the clock.
    package func act(in run: PolicyRun) {
        let outcome = SyncOutcome(addresses: 1, samples: 1, spacing: 0, model: run.model, random: &run.random)
        run.sync(outcome, reason: "poll")
        clock = UptimeClock(outcome, on: run.device)
        next = run.device.now + interval
        interval = min(interval * 2, Self.maximumPoll)
    }

    /// At the start the system clock is as the last poll left it: a quarter of a round trip off
    /// at most.
    package func begin(in run: PolicyRun) {
        let quarter = run.model.roundTrip / 4
        clock = UptimeClock(error: run.random.uniform(-quarter, quarter), on: run.device)
    }

    /// The system clock's reading.
    package func reading(in run: PolicyRun) -> Reading? { clock?.reading(on: run.device) }

    /// The system clock's readings.
    package func readings(over seconds: Double, in run: PolicyRun) -> ReadingSpan? {
        clock?.readings(over: seconds, on: run.device)
    }
}
