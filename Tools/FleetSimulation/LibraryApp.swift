import ClockCore
import NetClockPlatform
import NetworkClock
import TimeValues
import TimeDoubles

/// The library in one app on one device: an ``AnchoredClock`` for each process of the app (inside
/// a ``NetworkClock`` where the policy asks the facade), restored from what the previous process
/// saved in this boot, as the anchor store does (a reboot voids the anchor; the frequency the
/// earlier boot measured is carried as a widened prior, ``AnchoredClock/carryFrequency(fromEarlierBoot:carried:)``).
/// A sync offers the clock the time a real one would have learnt and saves the clock's state, as
/// `sync()` does.
///
/// What is read and decided is the library's own: the anchored clock's bound (its frequency
/// tracking and holdover), ``NetworkClock/neededBound(after:)``, and the schedule
/// (``RefreshSchedule``) the policies call.
package final class LibraryApp {
    /// What the app configures.
    package let configuration: NetworkClock.Configuration
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
        /// The interval the clock carried from an earlier boot, as the file keeps it.
        var carried: ClosedRange<Double>?
        /// Whether the file is of an earlier boot (its anchor void, its frequency carried).
        var isEarlierBoot = false
    }

    /// The library configured with `configuration`, with the variants given.
    package init(
        configuration: NetworkClock.Configuration, usesFacade: Bool = false
    ) {
        self.configuration = configuration
        self.usesFacade = usesFacade
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
    /// asks each host's addresses up to the largest odd count (the round's reserve:
    /// `SyncRound.addressesAskedFirst(of:)`; every request is answered here, so the reserve is
    /// never asked) and ends once a provisional decision is within half of it, as `sync()` does.
    package func outcome(model: FleetModel, random: inout FleetRandom) -> SyncOutcome {
        let need = configuration.refresh.maximumBound
        let perHost = configuration.addressesPerHost
        return SyncOutcome(
            addresses: configuration.servers.count
                * (need == nil ? perHost : SyncRound.addressesAskedFirst(of: perHost)),
            samples: configuration.query.samples, spacing: sampleSpacing, model: model,
            endsWithin: need.map { $0.secondsDouble / 2 }, random: &random)
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

    /// The device rebooted: the anchor file is of an earlier boot, whose frequency the next
    /// process carries.
    package func reboot() {
        (process, facade) = (nil, nil)
        syncs = []
        stored?.anchor = nil
        stored?.base = nil
        stored?.isEarlierBoot = true
    }

    /// Offers the time `outcome` learnt, now, to the running process's clock (or a short-lived
    /// process's), and saves the clock's state, as `sync()` does.
    func offer(_ outcome: SyncOutcome, on device: SimulatedDevice) {
        let clock = process ?? makeClock(on: device).clock
        clock.offer(anchor(error: outcome.error, bound: outcome.bound, on: device))
        let (held, frequency) = clock.snapshot()
        stored = Stored(
            anchor: held?.anchor, base: held?.base, points: frequency.points,
            carried: frequency.carried.map { $0.lower...$0.upper })
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
            if stored.isEarlierBoot {
                clock.carryFrequency(fromEarlierBoot: stored.points, carried: stored.carried)
            } else if var anchor = stored.anchor {
                anchor.source = .restored
                _ = clock.merge(
                    stored: anchor, base: stored.base, history: stored.points, carried: stored.carried)
            } else {
                clock.restoreFrequencyHistory(stored.points, carried: stored.carried)
            }
        }
        return (clock, facade)
    }
}
