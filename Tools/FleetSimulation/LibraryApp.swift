import ClockCore
import NetClockPlatform
import NetworkClock
import TimeBase
import TimeDoubles

/// The library in one app on one device: an ``AnchoredClock`` for each process of the app (inside
/// a ``NetworkClock`` where the policy asks the facade), restored from what the previous process
/// saved in this boot, as the anchor store does (a reboot voids the anchor and the frequency
/// history with it). A sync offers the clock the time a real one would have learnt and saves the
/// clock's state, as `sync()` does.
///
/// What is read and decided is the library's own: the anchored clock's bound (its frequency
/// tracking and holdover), ``NetworkClock/neededBound(after:)``, and the schedule
/// (``RefreshSchedule``) the policies call.
package final class LibraryApp {
    /// What the app configures.
    package let configuration: NetworkClock.Configuration
    /// The variant `--schedule-on-time-base` (``ExactTimeBase``).
    package let schedulesOnTimeBase: Bool
    /// The variant `--keep-frequency`: the frequency history outlives a reboot.
    package let keepsFrequencyAcrossReboots: Bool
    /// Whether each process makes a ``NetworkClock`` (whose setup reads the environment for its
    /// HTTP proxy, the bulk of a process's cost here) rather than the clock alone.
    package let usesFacade: Bool
    /// The clock of the app's running process, if it runs.
    package private(set) var process: AnchoredClock?
    /// The facade of the app's running process, if it runs and ``usesFacade``.
    package private(set) var facade: NetworkClock?
    /// What the anchor file holds: nil when there is none for this boot.
    private var stored: Stored?

    private struct Stored {
        var anchor: Anchor?
        var base: TimeBaseInstant?
        var points: [FrequencyTracker.Point]
    }

    /// The library configured with `configuration`, with the variants given.
    package init(
        configuration: NetworkClock.Configuration, usesFacade: Bool = false,
        schedulesOnTimeBase: Bool = false,
        keepsFrequencyAcrossReboots: Bool = false
    ) {
        self.configuration = configuration
        self.usesFacade = usesFacade
        self.schedulesOnTimeBase = schedulesOnTimeBase
        self.keepsFrequencyAcrossReboots = keepsFrequencyAcrossReboots
    }

    /// The requests one sync sends: every server's addresses, each a burst of the configured
    /// samples.
    package var requestsPerSync: Int {
        configuration.servers.count * configuration.addressesPerHost * configuration.query.samples
    }

    /// How long one sync's round takes: its bursts run in parallel, each sample the configured
    /// interval after the previous one.
    package var sampleSpacing: Double { configuration.query.interval.secondsDouble }

    /// Draws a sync as configured.
    package func outcome(model: FleetModel, random: inout FleetRandom) -> SyncOutcome {
        SyncOutcome(
            addresses: configuration.servers.count * configuration.addressesPerHost,
            samples: configuration.query.samples, spacing: sampleSpacing, model: model, random: &random)
    }

    /// The app starts: a new process, its clock restored from the store.
    package func launch(on device: SimulatedDevice) {
        (process, facade) = makeClock(on: device)
    }

    /// The app's process ends.
    package func exit() {
        (process, facade) = (nil, nil)
    }

    /// The device rebooted: the anchor file is of another boot.
    package func reboot(from old: TimeBaseInstant) {
        (process, facade) = (nil, nil)
        guard keepsFrequencyAcrossReboots, let points = stored?.points, !points.isEmpty else {
            stored = nil
            return
        }
        // The boot's own points (not those it kept from the one before: each reboot's gap is
        // known only to the RTC's second, which the pair rule charges once), moved onto the new
        // boot's time base with the reboot as a suspend of a millisecond: every pair across it is
        // then charged a suspend's resolution, as a pair across a suspend is.
        let shifted = points.filter { $0.base.suspended >= .zero }.map { point in
            var point = point
            point.base = TimeBaseInstant(
                awake: point.base.awake - old.awake + SimulatedDevice.awakeAtBoot,
                suspended: point.base.suspended - old.suspended - .milliseconds(1))
            return point
        }
        stored = Stored(anchor: nil, base: nil, points: shifted)
    }

    /// Offers the time `outcome` learnt, now, to the running process's clock (or a short-lived
    /// process's), and saves the clock's state.
    package func offer(_ outcome: SyncOutcome, on device: SimulatedDevice) {
        let clock = process ?? makeClock(on: device).clock
        let anchor = Anchor(
            trueTime: device.trueTime + .seconds(outcome.error), monotonic: device.clock.now(),
            errorBound: .seconds(outcome.bound), source: .ntp, server: "pool.ntp.org")
        clock.offer(anchor)
        let (held, frequency) = clock.snapshot()
        stored = Stored(anchor: held?.anchor, base: held?.base, points: frequency.points)
    }

    /// What the running process's `now()` reads.
    package func reading(on device: SimulatedDevice) -> Reading? {
        guard let estimate = process?.now() else { return nil }
        return Reading(
            error: (estimate.time - device.trueTime).secondsDouble, bound: estimate.errorBound.secondsDouble)
    }

    /// What the running process's `now()` reads over the next `seconds`, and how long its bound
    /// stays within `need`.
    package func readings(over seconds: Double, need: Double, on device: SimulatedDevice) -> ReadingSpan? {
        guard let clock = process, let start = reading(on: device) else { return nil }
        let distance = device.exchangeDistance(overTrueSeconds: seconds)
        guard let end = ahead(of: clock, after: distance, on: device) else { return nil }
        let endReading = Reading(
            error: (end.time - (device.trueTime + .seconds(seconds))).secondsDouble, bound: end.bound)
        var within: Double?
        if let bound = start.bound, bound <= need {
            if end.bound <= need {
                within = seconds
            } else {
                var (low, high) = (0.0, seconds)
                while high - low > 0.001 {
                    let middle = (low + high) / 2
                    let later = ahead(
                        of: clock, after: device.exchangeDistance(overTrueSeconds: middle), on: device)
                    if let later, later.bound <= need { low = middle } else { high = middle }
                }
                within = low
            }
        }
        return ReadingSpan(start: start, end: endReading, boundWithin: within)
    }

    /// The time and bound `now()` will read `distance` from now on the exchange clock: the
    /// clock's estimate there, less the charge for mapping an instant that far away, which a later
    /// `now()` reading the time base itself does not pay.
    private func ahead(of clock: AnchoredClock, after distance: Duration, on device: SimulatedDevice)
        -> (time: UnixTime, bound: Double)?
    {
        guard let estimate = clock.estimate(at: device.clock.now() + distance) else { return nil }
        let charge =
            schedulesOnTimeBase ? .zero : distance.drift(atPPM: clock.kernelDiscipline.mappingRate * 1e6)
        return (estimate.time, (estimate.errorBound - charge).secondsDouble)
    }

    /// A process's clock on `device` (and its facade, if it makes one), restored as
    /// `AnchoredClock.restore(from:)` restores one: the frequency history first, then the anchor
    /// at its time-base instant.
    private func makeClock(on device: SimulatedDevice) -> (clock: AnchoredClock, facade: NetworkClock?) {
        let machine = device.clock
        let wall = device.machine.wallClock
        let facade: NetworkClock?
        let clock: AnchoredClock
        switch (usesFacade, schedulesOnTimeBase) {
        case (true, true):
            let made = NetworkClock(
                configuration: configuration, monotonic: ExactTimeBase(machine), wall: wall,
                refreshClock: ManualClock(), timeBase: ExactTimeBase(machine))
            (clock, facade) = (made.clock, made)
        case (true, false):
            let made = NetworkClock(
                configuration: configuration, monotonic: machine, wall: wall, refreshClock: ManualClock(),
                timeBase: machine)
            (clock, facade) = (made.clock, made)
        case (false, true):
            facade = nil
            clock = AnchoredClock(
                monotonic: ExactTimeBase(machine), wall: wall, policy: configuration.clock,
                timeBase: ExactTimeBase(machine))
        case (false, false):
            facade = nil
            clock = AnchoredClock(
                monotonic: machine, wall: wall, policy: configuration.clock, timeBase: machine)
        }
        if let stored {
            clock.restoreFrequencyHistory(stored.points)
            if var anchor = stored.anchor {
                anchor.source = .restored
                _ = clock.offer(anchor, base: stored.base)
            }
        }
        return (clock, facade)
    }
}
