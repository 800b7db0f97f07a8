import NetClockPlatform
import Synchronization
import TimeValues

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

    /// What updates change under the mutex (the extensions in `AnchoredClock+Identity.swift` and
    /// `AnchoredClock+Stored.swift` update it too; nothing outside this type touches it).
    struct State: Sendable {
        var anchor: HeldAnchor?
        var frequency: FrequencyTracker
        /// The aging published with the anchor, in force until the next update.
        var aging: HoldoverAging
        /// The kernel's discipline as read at the last update.
        var kernel = KernelDiscipline(nil)
        /// The suspended time at the last time-base reading an update took.
        var lastSuspended: Duration?
        /// While a sync's provisional answers stand (``offerProvisional(_:)``), the anchor before
        /// them (`.some(nil)`: none): the sync's final answer is taken against it, not against
        /// them; nil otherwise.
        var settled: HeldAnchor??
        /// The sync whose provisional answers are taken (``beginProvisionalAnswers()``), while
        /// it goes on; nil once its final answer or a withdrawal closed it.
        var provisionalSync: UInt64?
        /// The last number ``beginProvisionalAnswers()`` gave.
        var provisionalSyncs: UInt64 = 0
        /// The boot and time-namespace offsets the held instants are measured against.
        var identity: ClockIdentity
    }

    let state: Mutex<State>
    let cell = AnchorCell()
    /// Where the kernel's discipline state is read at each update.
    private let kernel: KernelClockReader
    /// Where the boot id and the time namespace's offsets are read on slow paths.
    let identity: ClockIdentityReader
    /// Told of every change of the clocks' identity (``ClockIdentityChange``).
    let identityObserver = Mutex<(@Sendable (ClockIdentityChange) -> Void)?>(nil)

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

    /// The true time `later` from now as the time base counts it (the raw oscillator awake, the
    /// suspended time as now), with the bound the anchor will have grown to by then; `nil` until
    /// the first accepted ``offer(_:)``. What a schedule asks ("when does the bound reach the
    /// need?"): no exchange-clock instant is mapped, so nothing of the kernel's slew is charged; a
    /// sleeper on another clock shortens its wait by that clock's possible rate instead.
    package func estimate(afterElapsed later: Duration) -> TimeEstimate? {
        var reading = timeBase.read()
        guard var published = cell.read() else { return nil }
        if reading.epoch != published.epoch && checkIdentity() {
            guard let carried = cell.read() else { return nil }
            published = carried
            reading = timeBase.read()
        }
        return published.estimate(
            awakeNanoseconds: (reading.base.awake + later).truncatedNanoseconds,
            suspendedNanoseconds: reading.base.suspended.truncatedNanoseconds,
            uncertainty: reading.uncertainty.nanosecondsRoundedUp)
    }

    /// Whether the clock has an anchor.
    package var isSynchronized: Bool { cell.read() != nil }

    /// The current anchor, if any, at its exchange-clock instant (a sync's provisional one while it
    /// stands).
    package var anchor: Anchor? { state.withLock { $0.anchor?.anchor } }

    /// The current anchor's instant on the time base, if any.
    package var anchorTimeBase: TimeBaseInstant? { state.withLock { $0.anchor?.base } }

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

    /// ``offer(_:base:)``; with `yieldsWhenOlder`, an anchor that contradicts a current one later on
    /// the time base changes nothing (``AnchorUpdate/kept``).
    func offer(_ anchor: Anchor, base: TimeBaseInstant?, yieldsWhenOlder: Bool) -> AnchorUpdate {
        guard anchor.isWithinSupportedRange else { return .refused }
        checkIdentityIfMoved()
        let discipline = KernelDiscipline(kernel.read())
        let reading = timeBase.read()
        return state.withLock { state in
            // A sync's final answer replaces its provisional ones: it is taken against the anchor
            // held before them.
            state.provisionalSync = nil
            if let settled = state.settled {
                state.anchor = settled
                state.settled = nil
            }
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

    /// Opens a sync's provisional answers: the number its ``offerProvisional(_:sync:)`` calls
    /// carry. They are refused once the sync's final answer (``offer(_:)``) or
    /// ``withdrawProvisional()`` closed it, or another sync opened its own: a late reply of a
    /// cancelled sync never brings its answer back.
    package func beginProvisionalAnswers() -> UInt64 {
        state.withLock { state in
            state.provisionalSyncs &+= 1
            state.provisionalSync = state.provisionalSyncs
            return state.provisionalSyncs
        }
    }

    /// Offers a sync's provisional answer, before its round is over: taken against the current
    /// anchor as ``offer(_:)`` does (sticky authentication included) and published, so that
    /// ``now()`` has time within a round trip of the first replies; but it is no point of the
    /// frequency history, it is not what ``snapshot()`` (and so the anchor file) holds, and the
    /// round's final answer (``offer(_:)``) or ``withdrawProvisional()`` replaces it. `sync` is
    /// the number ``beginProvisionalAnswers()`` gave; a closed sync's answer is refused.
    @discardableResult
    package func offerProvisional(_ anchor: Anchor, sync: UInt64) -> AnchorUpdate {
        guard anchor.isWithinSupportedRange else { return .refused }
        let discipline = KernelDiscipline(kernel.read())
        let reading = timeBase.read()
        return state.withLock { state in
            guard state.provisionalSync == sync else { return .refused }
            if let current = state.anchor, current.anchor.isAuthenticated, !anchor.isAuthenticated {
                return .keptAuthenticated
            }
            let offered = HeldAnchor(
                placing: anchor, by: reading, discipline: discipline, lastSuspended: state.lastSuspended,
                exact: timeBase.exchangeClockIsBase, policy: policy)
            guard offered.anchor.isWithinSupportedRange else { return .refused }
            if state.settled == nil { state.settled = .some(state.anchor) }
            let outcome: AnchorUpdate
            if let current = state.anchor {
                let merged = AnchorIntersection(current: current, offered: offered, aging: state.aging)
                outcome = merged.outcome
                state.anchor = merged.anchor
            } else {
                outcome = .adopted
                state.anchor = offered
            }
            publish(state, check: reading)
            return outcome
        }
    }

    /// Takes a sync's provisional answers back (its round gave no time): the anchor held before
    /// them stands again, or none.
    package func withdrawProvisional() {
        let reading = timeBase.read()
        state.withLock { state in
            state.provisionalSync = nil
            guard let settled = state.settled else { return }
            state.anchor = settled
            state.settled = nil
            if settled == nil { cell.clear() } else { publish(state, check: reading) }
        }
    }

    /// Publishes the state for readers, valid for `check`'s suspend epoch; called with the mutex
    /// held, which serializes publishers.
    func publish(_ state: State, check: TimeBaseReading) {
        guard let anchor = state.anchor else { return }
        cell.publish(
            PublishedAnchor(
                anchor: anchor, aging: state.aging, check: check, smearsLeaps: policy.smearsLeapSeconds))
    }
}
