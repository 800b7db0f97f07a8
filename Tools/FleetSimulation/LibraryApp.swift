import ClockCore
import NetClockPlatform
import NetworkClock
import TimeValues
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
    /// The syncs in flight.
    var syncs: [LibrarySync] = []

    private struct Stored {
        var anchor: Anchor?
        var base: TimeBaseInstant?
        var points: [FrequencyTracker.Point]
    }

    /// The library configured with `configuration`, with the variants given.
    package init(
        configuration: NetworkClock.Configuration, usesFacade: Bool = false,
        keepsFrequencyAcrossReboots: Bool = false
    ) {
        self.configuration = configuration
        self.usesFacade = usesFacade
        self.keepsFrequencyAcrossReboots = keepsFrequencyAcrossReboots
    }

    /// The requests one sync sends at most: every server's addresses, each a burst of the
    /// configured samples (a clock with a need stops sooner: ``outcome(model:random:)``).
    package var requestsPerSync: Int {
        configuration.servers.count * configuration.addressesPerHost * configuration.query.samples
    }

    /// How long one sync's round takes: its bursts run in parallel, each sample the configured
    /// interval after the previous one.
    package var sampleSpacing: Double { configuration.query.interval.secondsDouble }

    /// Draws a sync as configured: with a need (``NetworkClock/RefreshPolicy/maximumBound``) it
    /// ends once a provisional decision is within half of it, as `sync()` does.
    package func outcome(model: FleetModel, random: inout FleetRandom) -> SyncOutcome {
        SyncOutcome(
            addresses: configuration.servers.count * configuration.addressesPerHost,
            samples: configuration.query.samples, spacing: sampleSpacing, model: model,
            endsWithin: configuration.refresh.maximumBound.map { $0.secondsDouble / 2 }, random: &random)
    }

    /// The app starts: a new process, its clock restored from the store.
    package func launch(on device: SimulatedDevice) {
        (process, facade) = makeClock(on: device)
    }

    /// The app's process ends, and the syncs it was making with it.
    package func exit() {
        (process, facade) = (nil, nil)
        syncs.removeAll { $0.inProcess }
    }

    /// The device rebooted: the anchor file is of another boot.
    package func reboot(from old: TimeBaseInstant) {
        (process, facade) = (nil, nil)
        syncs = []
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
    /// process's), and saves the clock's state, as `sync()` does.
    func offer(_ outcome: SyncOutcome, on device: SimulatedDevice) {
        let clock = process ?? makeClock(on: device).clock
        clock.offer(anchor(error: outcome.error, bound: outcome.bound, on: device))
        let (held, frequency) = clock.snapshot()
        stored = Stored(anchor: held?.anchor, base: held?.base, points: frequency.points)
    }

    /// An anchor taken now, off by `error` within `bound` (seconds).
    func anchor(error: Double, bound: Double, on device: SimulatedDevice) -> Anchor {
        Anchor(
            trueTime: device.trueTime + .seconds(error), monotonic: device.clock.now(),
            errorBound: .seconds(bound), source: .ntp, server: "pool.ntp.org")
    }

    /// A process's clock on `device` (and its facade, if it makes one), restored as
    /// `AnchoredClock.restore(from:)` restores one (``AnchoredClock/merge(stored:base:history:)``).
    private func makeClock(on device: SimulatedDevice) -> (clock: AnchoredClock, facade: NetworkClock?) {
        let machine = device.clock
        let wall = device.machine.wallClock
        let facade: NetworkClock?
        let clock: AnchoredClock
        if usesFacade {
            let made = NetworkClock(
                configuration: configuration, monotonic: machine, wall: wall, refreshClock: ManualClock(),
                timeBase: machine)
            (clock, facade) = (made.clock, made)
        } else {
            facade = nil
            clock = AnchoredClock(
                monotonic: machine, wall: wall, policy: configuration.clock, timeBase: machine)
        }
        if let stored {
            if var anchor = stored.anchor {
                anchor.source = .restored
                _ = clock.merge(stored: anchor, base: stored.base, history: stored.points)
            } else {
                clock.restoreFrequencyHistory(stored.points)
            }
        }
        return (clock, facade)
    }
}
