import NetClockPlatform
import Synchronization
import TimeBase

/// A clock that tells true time from an anchor on a time base no one can set or slew
/// (``SystemTimeBase``), unaffected by the wall clock, with an error bound that grows with time
/// since the anchor. Feed it anchors with ``offer(_:)``; read it with ``now()`` from any thread,
/// lock-free and allocation-free (a double-buffered sequence lock; updates take a mutex).
///
/// How it corrects for the oscillator's frequency and grows the bound: the HowTheErrorBoundWorks
/// article, "Holdover" and "Frequency".
package final class AnchoredClock: Sendable {
    /// The policy the clock was created with.
    package let policy: ClockPolicy
    /// The exchange clock that offered anchors are stamped with.
    package let monotonic: MonotonicReader
    /// The time base the clock extrapolates on.
    package let timeBase: TimeBaseReader
    /// The system wall clock, used only to report offsets, never to tell time.
    let wall: any WallClock

    private struct State: Sendable {
        var anchor: HeldAnchor?
        var frequency: FrequencyTracker
        /// The aging published with the anchor, in force until the next update.
        var aging: HoldoverAging
        /// The kernel's discipline as read at the last update.
        var kernel = KernelDiscipline(nil)
        /// The suspended time at the last time-base reading an update took.
        var lastSuspended: Duration?
        /// The boot and time-namespace offsets the held instants are measured against.
        var identity: ClockIdentity
    }

    private let state: Mutex<State>
    private let cell = AnchorCell()
    /// Where the kernel's discipline state is read at each update.
    private let kernel: KernelClockReader
    /// Where the boot id and the time namespace's offsets are read on slow paths.
    private let identity: ClockIdentityReader
    /// Told of every change of the clocks' identity (``ClockIdentityChange``).
    private let identityObserver = Mutex<(@Sendable (ClockIdentityChange) -> Void)?>(nil)

    /// Creates an unsynchronized clock on `hardware`'s clocks (the kernel's by default) with
    /// `policy`'s prior tolerance, wander allowances and history limits.
    package init(
        hardware: ClockHardware = .system, policy: ClockPolicy = ClockPolicy()
    ) {
        self.monotonic = MonotonicReader(hardware)
        self.wall = hardware.wall
        self.policy = policy
        self.kernel = hardware.kernel
        self.identity = hardware.identity
        self.timeBase = TimeBaseReader(hardware)
        self.state = Mutex(
            State(
                anchor: nil, frequency: FrequencyTracker(policy: policy), aging: .prior(policy),
                identity: hardware.identity.read()))
    }

    /// Creates an unsynchronized clock on simulated clocks
    /// (``ClockHardware/simulated(monotonic:wall:kernel:timeBase:)``).
    package convenience init(
        monotonic: some MonotonicClock, wall: some WallClock,
        policy: ClockPolicy = ClockPolicy(),
        kernel: KernelClockReader = .unavailable, timeBase: (any TimeBaseClock)? = nil,
        identity: ClockIdentityReader = .unchanging
    ) {
        self.init(
            hardware: .simulated(
                monotonic: monotonic, wall: wall, kernel: kernel, timeBase: timeBase, identity: identity),
            policy: policy)
    }

    // MARK: Reading

    /// The true time now, with its error bound; `nil` until the first accepted ``offer(_:)``.
    ///
    /// Lock-free, allocation-free and safe to call from any thread at any rate: one read of the
    /// raw oscillator and of the suspend epoch. After a suspend or a wall-clock step changed the
    /// epoch, one reading pairs the clocks again and republishes, so the next ones are fast again.
    @inline(__always)
    package func now() -> TimeEstimate? {
        if let estimate = cell.estimate(reading: { timeBase.awakeNanosecondsAndEpoch() }) { return estimate }
        return nowAfterEpochChange()
    }

    /// ``now()`` once the suspend epoch changed, or near a leap second: reads the time base in full
    /// and, for a new epoch and if no update is in progress, republishes the anchor for it.
    @inline(never)
    private func nowAfterEpochChange() -> TimeEstimate? {
        // The anchor first, then the clocks, as on the fast path: the age is never negative.
        guard var published = cell.read() else { return nil }
        var reading = timeBase.read()
        if reading.epoch != published.epoch && checkIdentity() {
            // Restored (the anchor was carried across what its clocks did not count) or moved to
            // another boot (dropped): the new anchor, then a new reading.
            guard let carried = cell.read() else { return nil }
            published = carried
            reading = timeBase.read()
        }
        let estimate = published.estimate(
            awakeNanoseconds: reading.base.awake.truncatedNanoseconds,
            suspendedNanoseconds: reading.base.suspended.truncatedNanoseconds,
            uncertainty: reading.uncertainty.nanosecondsRoundedUp)
        // Republished only for a new epoch: near a leap second the fast path sends every reading
        // here, and those need no update.
        guard reading.epoch != published.epoch else { return estimate }
        _ = state.withLockIfAvailable { state in
            state.lastSuspended = reading.base.suspended
            publish(state, check: reading)
        }
        return estimate
    }

    /// The true time at exchange-clock instant `instant` (past or future), with its error bound;
    /// `nil` until the first accepted ``offer(_:)``. Useful to convert event timestamps taken with
    /// the exchange clock. The instant is placed on the time base from a reading taken now, at the
    /// kernel's possible slew over the distance (none when the exchange clock is the time base).
    package func estimate(at instant: MonotonicInstant) -> TimeEstimate? {
        var reading = timeBase.read()
        guard var published = cell.read() else { return nil }
        if reading.epoch != published.epoch && checkIdentity() {
            guard let carried = cell.read() else { return nil }
            published = carried
            reading = timeBase.read()
        }
        let distance = reading.exchange - instant
        var uncertainty = reading.uncertainty
        if !timeBase.exchangeClockIsBase && distance != .zero {
            let discipline = state.withLock { $0.kernel }
            uncertainty += abs(distance).drift(atPPM: discipline.mappingRate * 1e6)
        }
        return published.estimate(
            awakeNanoseconds: (reading.base.awake - distance).truncatedNanoseconds,
            suspendedNanoseconds: reading.base.suspended.truncatedNanoseconds,
            uncertainty: uncertainty.nanosecondsRoundedUp)
    }

    /// Whether the clock has an anchor.
    package var isSynchronized: Bool { cell.read() != nil }

    /// The current anchor, if any, at its exchange-clock instant.
    package var anchor: Anchor? { state.withLock { $0.anchor?.anchor } }

    /// The current anchor's instant on the time base, if any.
    package var anchorTimeBase: TimeBaseInstant? { state.withLock { $0.anchor?.base } }

    /// A copy of the frequency tracker with its sync-point history (what the anchor file saves).
    package var frequencyTracker: FrequencyTracker { state.withLock { $0.frequency } }

    /// What the clock knows about its oscillator's frequency now (see ``FrequencyEstimate``).
    package func frequency() -> FrequencyEstimate {
        let now = timeBase.read().base
        return state.withLock { state in
            FrequencyEstimate(
                tracker: state.frequency, aging: state.aging, anchor: state.anchor?.base, now: now)
        }
    }

    /// The reset of the frequency history since `before` was taken, if there was one (the latest,
    /// when several).
    package func frequencyReset(since before: FrequencyEstimate) -> FrequencyReset? {
        let (count, reason) = state.withLock { ($0.frequency.resetCount, $0.frequency.lastReset) }
        guard count > before.resetCount, let reason else { return nil }
        return FrequencyReset(
            code: reason.rawValue, previousPPM: before.isMeasured ? before.ppm : nil,
            previousIntervalPPM: before.isMeasured ? before.lowerPPM...before.upperPPM : nil)
    }

    /// The rate at which the bound grows now, as a fraction: the frequency interval's half-width
    /// plus the wander allowed since the anchor, or the prior tolerance before the frequency is
    /// measured.
    package var boundGrowthRate: Double { frequency().growthRate }

    /// The kernel's discipline as read at the last update (its state is `nil` when unknown).
    package var kernelDiscipline: KernelDiscipline { state.withLock { $0.kernel } }

    /// The true time minus the system wall clock, now (the NTP sign convention: positive when the
    /// wall clock is behind), compared at the instant of one bracketed wall-clock reading;
    /// `nil` until synchronized.
    package func wallClockOffset() -> Duration? {
        let reading = TimeMapping(wall: wall, monotonic: monotonic)
        return estimate(at: reading.monotonic)?.offset(from: reading.wall)
    }

    // MARK: Updating

    /// Offers a new anchor and keeps what both it and the current anchor prove.
    ///
    /// The anchor is placed on the time base from a paired reading taken now and intersected with
    /// the current anchor aged to the same instant, so an agreeing anchor never loosens the bound.
    /// When they do not overlap the fresh one wins (``AnchorUpdate/discontinuous(step:)``);
    /// after a frequency contradiction it replaces the current one as it is
    /// (``AnchorUpdate/adopted``). Every anchor that is not ``TimeSource/restored`` is a
    /// point of the frequency history (the HowTheErrorBoundWorks article, "Frequency").
    /// - Returns: what became of the anchor. Anchors with a negative bound or values outside the
    ///   supported range (see ``Anchor``) are refused.
    @discardableResult
    package func offer(_ anchor: Anchor) -> AnchorUpdate {
        offer(anchor, base: nil)
    }

    /// Offers `anchor`, whose time-base instant is `base` when known (a restored anchor of this
    /// boot, or a benchmark's), else placed from a reading taken now.
    package func offer(_ anchor: Anchor, base: TimeBaseInstant?) -> AnchorUpdate {
        offer(anchor, base: base, yieldsWhenOlder: false)
    }

    /// Takes what a state file holds: an anchor saved by this or another process of this boot
    /// (source ``TimeSource/restored``) at time-base instant `base` when known, and the frequency
    /// history saved with it. The history is merged (``restoreFrequencyHistory(_:)``); the anchor
    /// competes as an offered one does, except that when it contradicts the current anchor (no
    /// overlap) the later of the two on the time base wins, so a file read back never undoes a
    /// fresher sync. Either is dropped when it lies ahead of the time base now (not this boot's
    /// past, whatever the boot id says): the anchor is then placed from its exchange-clock instant.
    @discardableResult
    package func merge(stored anchor: Anchor, base: TimeBaseInstant?, history: [FrequencyTracker.Point])
        -> AnchorUpdate
    {
        let now = timeBase.read().base
        // The suspended time is a difference of two clocks read apart: a reading can put it up to
        // half its spread (tens of nanoseconds) either side of the kernel's value, so an instant
        // saved by one reading may show more suspended time than a later reading does. Within
        // that noise (``HoldoverAging/suspendNoise``) it is still this boot's past.
        let plausible = { (base: TimeBaseInstant) in
            base.awake <= now.awake && base.suspended <= now.suspended + HoldoverAging.suspendNoise
        }
        if history.allSatisfy({ plausible($0.base) }) { restoreFrequencyHistory(history) }
        return offer(anchor, base: base.flatMap { plausible($0) ? $0 : nil }, yieldsWhenOlder: true)
    }

    /// ``offer(_:base:)``; with `yieldsWhenOlder`, an anchor that contradicts a current one later on
    /// the time base changes nothing (``AnchorUpdate/kept``).
    private func offer(_ anchor: Anchor, base: TimeBaseInstant?, yieldsWhenOlder: Bool) -> AnchorUpdate {
        guard anchor.isWithinSupportedRange else { return .refused }
        checkIdentityIfMoved()
        let discipline = KernelDiscipline(kernel.read())
        let reading = timeBase.read()
        return state.withLock { state in
            if let current = state.anchor, current.anchor.isAuthenticated, !anchor.isAuthenticated {
                // Sticky authentication: unauthenticated evidence never moves authenticated time,
                // and not even the frequency history learns from it.
                return .keptAuthenticated
            }
            let offered =
                base.map { HeldAnchor(anchor: anchor, base: $0) }
                ?? HeldAnchor(
                    placing: anchor, by: reading, discipline: discipline, lastSuspended: state.lastSuspended,
                    exact: timeBase.exchangeClockIsBase, policy: policy)
            guard offered.anchor.isWithinSupportedRange else { return .refused }
            state.kernel = discipline
            state.lastSuspended = reading.base.suspended
            let before = state.aging
            var outcome: AnchorUpdate
            var next: HeldAnchor
            if let current = state.anchor {
                let merged = AnchorIntersection(current: current, offered: offered, aging: before)
                if yieldsWhenOlder, case .discontinuous = merged.outcome,
                    offered.base.total <= current.base.total
                {
                    return .kept
                }
                outcome = merged.outcome
                next = merged.anchor
                if case .discontinuous = outcome {
                } else {
                    // The result keeps what both anchors knew about leap seconds (its own first).
                    let other =
                        next.anchor.leap == offered.anchor.leap && next.base == offered.base
                        ? current.aged(to: offered.base, exchange: offered.anchor.monotonic, by: before)
                            .anchor.leap
                        : offered.anchor.leap
                    next.anchor.leap = next.anchor.leap.merged(with: other, at: next.anchor.trueTime)
                }
            } else {
                outcome = .adopted
                next = offered
            }
            if anchor.source != .restored {
                let point = FrequencyTracker.Point(
                    base: offered.base, trueTime: offered.anchor.trueTime,
                    errorBound: offered.anchor.errorBound)
                if case .discontinuous = outcome {
                    state.frequency.reset(keeping: point, reason: .discontinuity)
                } else if let newest = state.frequency.points.last,
                    next.anchor.leap.separates(newest.trueTime, point.trueTime)
                {
                    // The history's POSIX times are a second off the new one's: no pair across the
                    // leap measures the oscillator. The anchor itself was carried across it.
                    state.frequency.reset(keeping: point, reason: .leapSecond)
                } else if state.frequency.add(point) != nil, outcome != .adopted {
                    // The frequency moved beyond the allowance: the current anchor was aged at a
                    // frequency that no longer held, so its interval is no evidence any more.
                    // The offered anchor alone is.
                    outcome = .adopted
                    next = offered
                }
            }
            var after = HoldoverAging(
                state.frequency.interval(at: next.base), policy: policy, reference: next.base)
            // A new frequency interval is a sound statement about the whole line, but around a
            // moved centre it can be looser than the old one: never publish a bound looser than
            // both. Then the two intervals are intersected now and the new one applies from here.
            let oldNow = next.aged(to: reading.base, exchange: reading.exchange, by: before)
            let newNow = next.aged(to: reading.base, exchange: reading.exchange, by: after)
            if !newNow.isInside(oldNow), let both = oldNow.intersection(newNow) {
                next = both
                after = HoldoverAging(
                    state.frequency.interval(at: next.base), policy: policy, reference: next.base)
            }
            state.anchor = next
            state.aging = after
            publish(state, check: reading)
            return outcome
        }
    }

    /// Merges sync points from an earlier process (same boot) into the frequency history
    /// (``FrequencyTracker/merge(_:)``).
    package func restoreFrequencyHistory(_ points: [FrequencyTracker.Point]) {
        checkIdentityIfMoved()
        let reading = timeBase.read()
        state.withLock { state in
            state.frequency.merge(points)
            let tracker = state.frequency
            if let anchor = state.anchor {
                state.aging = HoldoverAging(
                    tracker.interval(at: anchor.base), policy: policy, reference: anchor.base)
                publish(state, check: reading)
            }
        }
    }

    /// The anchor, its time-base instant and the frequency history, read under one lock
    /// acquisition.
    package func snapshot() -> (anchor: HeldAnchor?, frequency: FrequencyTracker) {
        state.withLock { ($0.anchor, $0.frequency) }
    }

    /// What a state file keeps: the anchor, its time-base instant, the frequency history and the
    /// time-namespace offsets their instants are measured against (nil when they could not be
    /// read), under one lock acquisition, after a check that the clocks' identity is unchanged.
    package func persistentState() -> (
        anchor: HeldAnchor?, frequency: FrequencyTracker, offsets: TimeNamespaceOffsets?
    ) {
        checkIdentityIfMoved()
        return state.withLock { ($0.anchor, $0.frequency, $0.identity.offsets) }
    }

    /// Calls `observer` (from the thread that noticed it) whenever the clocks' identity changes:
    /// the anchor carried across a restore, or dropped in another boot. Replaces any earlier one.
    package func observeIdentityChanges(_ observer: @escaping @Sendable (ClockIdentityChange) -> Void) {
        identityObserver.withLock { $0 = observer }
    }

    // MARK: The clocks' identity

    /// ``checkIdentity()`` when the suspend epoch moved since the anchor was published (or none is):
    /// a restore always moves it (real time went on while the clocks stood still), so an unmoved
    /// epoch needs no file read.
    private func checkIdentityIfMoved() {
        let epoch = timeBase.read().epoch
        guard cell.read().map({ $0.epoch != epoch }) ?? true else { return }
        checkIdentity()
    }

    /// Reads the boot id and the time namespace's offsets and compares them with those the held
    /// instants are measured against. New offsets in the same boot (a restore) shift the anchor
    /// and the frequency history by their change; another boot drops both. Then republishes (or
    /// clears) and tells the observer. Slow paths only: it reads two files of `/proc`.
    /// - Returns: whether anything changed.
    @discardableResult
    private func checkIdentity() -> Bool {
        let fresh = identity.read()
        let change = state.withLock { state -> ClockIdentityChange? in
            let now = state.identity.updated(by: fresh)
            guard now != state.identity else { return nil }
            let before = state.identity
            state.identity = now
            if let was = before.bootID, let current = now.bootID, was != current {
                state.anchor = nil
                state.frequency = FrequencyTracker(policy: policy)
                state.aging = .prior(policy)
                state.lastSuspended = nil
                cell.clear()
                return .otherBoot(was: was, now: current)
            }
            guard let old = before.offsets, let new = now.offsets, old != new else { return nil }
            let moved = old.change(to: new)
            state.frequency.shift(by: moved)
            state.lastSuspended = state.lastSuspended.map { $0 + moved.suspended }
            if var held = state.anchor {
                held.anchor.monotonic = held.anchor.monotonic + moved.bootTime
                held.base = held.base.shifted(by: moved)
                state.anchor = held
                // The aging's reference is a total time-base instant too.
                state.aging.reference += moved.bootTime
                publish(state, check: timeBase.read())
            }
            return .shifted(by: moved)
        }
        guard let change else { return false }
        identityObserver.withLock { $0 }?(change)
        return true
    }

    /// Publishes the state for readers, valid for `check`'s suspend epoch; called with the mutex
    /// held, which serializes publishers.
    private func publish(_ state: State, check: TimeBaseReading) {
        guard let anchor = state.anchor else { return }
        cell.publish(
            PublishedAnchor(
                anchor: anchor, aging: state.aging, check: check, smearsLeaps: policy.smearsLeapSeconds))
    }
}
