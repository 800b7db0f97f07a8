import SNTP
import Synchronization

/// A clock that tells true time from an anchor and the monotonic clock, unaffected by changes to the
/// system's wall clock, with an error bound that grows honestly with time since the anchor.
///
/// Feed it anchors from syncs with ``update(_:)``; read it with ``now()`` from any thread.
///
/// ```swift
/// let clock = AnchoredClock()
/// clock.update(Anchor(trueTime: serverTime, monotonic: instant, errorBound: .milliseconds(12),
///                     source: .ntp, server: "time.example.com"))
/// if let estimate = clock.now() {
///     print(estimate.time, "±", estimate.errorBound)
/// }
/// ```
///
/// Reading is lock-free and allocation-free: the anchor is published through a double-buffered
/// sequence lock, so an update never blocks a reader. Updates are serialized by a
/// mutex held only for the few microseconds of bookkeeping.
package final class AnchoredClock: Sendable {
    /// The policy the clock was created with.
    package let policy: NetworkClock.ClockPolicy
    /// The monotonic clock the anchor is measured against.
    let monotonic: MonotonicReader
    /// The system wall clock, used only to report offsets, never to tell time.
    let wall: any WallClockSource

    private struct State: Sendable {
        var anchor: Anchor?
        var drift: DriftEstimator
        /// The kernel's discipline as read at the last update.
        var kernel = KernelDiscipline(nil)
    }

    private let state: Mutex<State>
    private let cell = AnchorCell()
    /// Where the kernel's discipline state is read at each update.
    private let kernel: KernelClockSource

    /// Creates an unsynchronized clock.
    ///
    /// - Parameters:
    ///   - monotonic: The clock the anchor is measured against; production code keeps the default
    ///     ``BootTimeClock``, which counts suspend and cannot be set.
    ///   - wall: The system wall clock, used only by ``wallClockOffset()``.
    ///   - policy: Frequency tolerance and drift-estimation thresholds.
    ///   - kernel: Where the kernel's time discipline is read at each update (see
    ///     ``KernelDiscipline``). `nil` chooses ``KernelClockSource/system`` for the boot-time
    ///     clock, which the kernel disciplines, and ``KernelClockSource/unavailable`` for any
    ///     other (simulated) monotonic clock.
    package init(
        monotonic: some MonotonicClockSource = BootTimeClock(),
        wall: some WallClockSource = SystemWallClock(),
        policy: NetworkClock.ClockPolicy = NetworkClock.ClockPolicy(),
        kernel: KernelClockSource? = nil
    ) {
        self.monotonic = MonotonicReader(monotonic)
        self.wall = wall
        self.policy = policy
        self.kernel = kernel ?? (monotonic is BootTimeClock ? .system : .unavailable)
        self.state = Mutex(State(anchor: nil, drift: DriftEstimator(policy: policy)))
    }

    // MARK: Reading

    /// The true time now, with its error bound; `nil` until the first accepted ``update(_:)``.
    ///
    /// Lock-free, allocation-free and safe to call from any thread at any rate.
    @inline(__always)
    package func now() -> TimeEstimate? {
        guard let published = cell.read() else { return nil }
        return published.estimate(atMonotonicNanoseconds: monotonic.nanoseconds())
    }

    /// The true time at monotonic instant `instant` (past or future), with its error bound; `nil`
    /// until the first accepted ``update(_:)``. Useful to convert event timestamps taken with the
    /// monotonic clock.
    package func estimate(at instant: MonotonicInstant) -> TimeEstimate? {
        cell.read()?.estimate(atMonotonicNanoseconds: instant.sinceOrigin.truncatedNanoseconds)
    }

    /// Whether the clock has an anchor.
    package var isSynchronized: Bool { cell.read() != nil }

    /// The current anchor, if any.
    package var anchor: Anchor? { state.withLock { $0.anchor } }

    /// The measured drift of the monotonic clock, once enough syncs have been seen.
    package var driftEstimate: DriftEstimate? { state.withLock { $0.drift.estimate } }

    /// A copy of the drift estimator with its sync-point history (what an ``AnchorStore`` saves).
    package var driftEstimator: DriftEstimator { state.withLock { $0.drift } }

    /// The true time minus the system wall clock, now (the NTP sign convention: positive when the
    /// wall clock is behind); `nil` until synchronized.
    package func wallClockOffset() -> Duration? {
        guard let estimate = now() else { return nil }
        return estimate.offset(from: wall.now())
    }

    /// The rate at which the bound grows, as a fraction: the kernel's slew limit while the last
    /// update found the kernel unsynchronised or slewing, else the drift estimate's uncertainty
    /// once known, else the policy's tolerance.
    package var boundGrowthRate: Double {
        state.withLock { Self.aging(for: $0, policy: policy).growthRate }
    }

    /// The kernel's discipline as read at the last update (its state is `nil` when unknown).
    package var kernelDiscipline: KernelDiscipline { state.withLock { $0.kernel } }

    // MARK: Updating

    /// Offers a new anchor; see ``offer(_:)``.
    /// - Returns: whether the anchor was replaced by one from the offered sample (adopted,
    ///   intersected or discontinuous): `false` when it was refused or added nothing.
    @discardableResult
    package func update(_ anchor: Anchor) -> Bool {
        offer(anchor).replacedAnchor
    }

    /// Offers a new anchor and keeps what both it and the current anchor prove.
    ///
    /// The current anchor is aged to the later of the two instants at the rates its estimates were
    /// published with (drift correction and growth rate), and so is the offered one if it is
    /// older. When the two intervals overlap, the anchor becomes their intersection, whose bound
    /// is never wider than either and whose midpoint is the new true time; the offered anchor is
    /// kept as it is when it lies inside the current one, and the current one when the offered
    /// one adds nothing, so a worse sample never loosens the bound. When they do not overlap, one
    /// of them is wrong and the fresh one wins (``SyncReport.AnchorUpdate/discontinuous(step:)``).
    ///
    /// The kernel's discipline is read at each offer (see ``KernelDiscipline``): the resulting
    /// anchor's bound is widened by the phase the kernel still has to slew, and the bound grows at
    /// the kernel's slew limit until an offer finds the kernel synchronised and steady again. When
    /// the kernel's reading changes the rates, or widens the bound, the anchor is first carried to
    /// this moment at the old rates, so the change applies only from now on and never shrinks the
    /// bound over time that has already passed. (A new drift estimate, fitted over past syncs,
    /// applies along the anchor's whole line, as before.)
    ///
    /// Every anchor that is not ``TimeSource/restored`` is also fed to drift estimation, whatever
    /// the outcome: a sample with a looser bound still tells where the line runs, weighted
    /// accordingly.
    /// - Returns: what became of the anchor. Anchors with a negative bound or values outside the
    ///   supported range (see ``Anchor``) are refused.
    @discardableResult
    package func offer(_ anchor: Anchor) -> SyncReport.AnchorUpdate {
        guard anchor.isWithinSupportedRange else { return .refused }
        let discipline = KernelDiscipline(kernel.read())
        let instant = monotonic.now()
        return state.withLock { state in
            if let current = state.anchor, current.isAuthenticated, !anchor.isAuthenticated {
                // Sticky authentication: not even the drift history learns from it.
                return .keptAuthenticated
            }
            let before = Self.aging(for: state, policy: policy)
            if anchor.source != .restored {
                state.drift.add(DriftEstimator.SyncPoint(anchor))
            }
            // A kernel reading holds from now on; a drift estimate is fitted over past syncs and
            // applies along the anchor's whole line, as it always has.
            let kernelRateChanged = state.kernel.slewGrowthRate != discipline.slewGrowthRate
            state.kernel = discipline
            let widening = discipline.boundWidening
            let outcome: SyncReport.AnchorUpdate
            let next: Anchor
            if let current = state.anchor {
                let merged = AnchorIntersection(current: current, offered: anchor, aging: before)
                outcome = merged.outcome
                if !kernelRateChanged && widening == .zero {
                    next = merged.anchor
                } else {
                    // Carried to this moment at the rates in force until now, so that neither the
                    // kernel's new rate nor the widening applies to time that has already passed.
                    let common = merged.atCommonInstant
                    next = common.aged(to: max(common.monotonic, instant), by: before)
                }
            } else {
                outcome = .adopted
                next = anchor
            }
            var widened = next
            widened.errorBound += widening
            // Widening cannot leave the supported range in practice (the kernel clamps its offset
            // to 0.5 s); if it ever did, keep the unwidened anchor rather than an unsupported one.
            state.anchor = widened.isWithinSupportedRange ? widened : next
            publish(state)
            return outcome
        }
    }

    /// Merges sync points from an earlier process (same boot) into drift estimation.
    func restoreDriftHistory(_ points: [DriftEstimator.SyncPoint]) {
        state.withLock { state in
            for point in points { state.drift.add(point) }
            publish(state)
        }
    }

    /// The anchor and drift estimator, read together under one lock acquisition.
    func snapshot() -> (anchor: Anchor?, drift: DriftEstimator) {
        state.withLock { ($0.anchor, $0.drift) }
    }

    /// Publishes the state for readers; called with the mutex held, which serializes publishers.
    private func publish(_ state: State) {
        guard let anchor = state.anchor else { return }
        let aging = Self.aging(for: state, policy: policy)
        cell.publish(
            PublishedAnchor(
                anchor: anchor, frequencyError: aging.frequencyError, boundGrowthRate: aging.growthRate,
                isDriftCorrected: state.kernel.slewGrowthRate == nil && state.drift.estimate != nil))
    }

    /// The drift correction and bound growth rate in force: the kernel's slew limit (and no
    /// correction) while it may be slewing, else the measured drift, else the policy's tolerance.
    private static func aging(for state: State, policy: NetworkClock.ClockPolicy) -> AnchorAging {
        if let slew = state.kernel.slewGrowthRate {
            return AnchorAging(frequencyError: 0, growthRate: max(slew, policy.toleranceFraction))
        }
        guard let estimate = state.drift.estimate else {
            return AnchorAging(frequencyError: 0, growthRate: policy.toleranceFraction)
        }
        return AnchorAging(frequencyError: estimate.frequencyError, growthRate: estimate.rateUncertainty)
    }
}
