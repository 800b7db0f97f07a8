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
    package let policy: ClockPolicy
    /// The monotonic clock the anchor is measured against.
    let monotonic: MonotonicReader
    /// The system wall clock, used only to report offsets, never to tell time.
    let wall: any WallClockSource

    private struct State: Sendable {
        var anchor: Anchor?
        var drift: DriftEstimator
    }

    private let state: Mutex<State>
    private let cell = AnchorCell()

    /// Creates an unsynchronized clock.
    ///
    /// - Parameters:
    ///   - monotonic: The clock the anchor is measured against; production code keeps the default
    ///     ``BootTimeClock``, which counts suspend and cannot be set.
    ///   - wall: The system wall clock, used only by ``wallClockOffset()``.
    ///   - policy: Frequency tolerance and drift-estimation thresholds.
    package init(
        monotonic: some MonotonicClockSource = BootTimeClock(),
        wall: some WallClockSource = SystemWallClock(),
        policy: ClockPolicy = ClockPolicy()
    ) {
        self.monotonic = MonotonicReader(monotonic)
        self.wall = wall
        self.policy = policy
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

    /// The rate at which the bound grows, as a fraction: the drift estimate's uncertainty once known,
    /// else the policy's tolerance.
    package var boundGrowthRate: Double {
        state.withLock { Self.rates(for: $0.drift.estimate, policy: policy).growth }
    }

    // MARK: Updating

    /// Offers a new anchor. It replaces the current one only if its bound, aged to this moment, is
    /// tighter than the current anchor's bound aged to this moment, so a worse sample never
    /// overrides a better one.
    ///
    /// Every anchor that is not ``TimeSource/restored`` is also fed to drift estimation, accepted or
    /// not: a sample with a looser bound still tells where the line runs, weighted accordingly.
    /// - Returns: whether the anchor became the clock's anchor. Anchors with a negative bound or
    ///   values outside the supported range (see ``Anchor``) are refused.
    @discardableResult
    package func update(_ anchor: Anchor) -> Bool {
        guard anchor.isWithinSupportedRange else { return false }
        let instant = monotonic.now()
        return state.withLock { state in
            if anchor.source != .restored {
                state.drift.add(DriftEstimator.SyncPoint(anchor))
            }
            let rate = Self.rates(for: state.drift.estimate, policy: policy).growth
            let accepted: Bool
            if let current = state.anchor {
                accepted =
                    anchor.errorBound(at: instant, rateUncertainty: rate)
                    < current.errorBound(at: instant, rateUncertainty: rate)
            } else {
                accepted = true
            }
            if accepted { state.anchor = anchor }
            publish(state)
            return accepted
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
        let rates = Self.rates(for: state.drift.estimate, policy: policy)
        cell.publish(
            PublishedAnchor(
                anchor: anchor, frequencyError: rates.correction, boundGrowthRate: rates.growth,
                isDriftCorrected: state.drift.estimate != nil))
    }

    private static func rates(for estimate: DriftEstimate?, policy: ClockPolicy) -> (
        correction: Double, growth: Double
    ) {
        guard let estimate else { return (0, policy.toleranceFraction) }
        return (estimate.frequencyError, estimate.rateUncertainty)
    }
}
