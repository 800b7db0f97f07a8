import ClockCore
import SNTP
import TimeValues

extension NetworkClock {
    /// When a running ``NetworkClock`` syncs again: a jittered period after success, exponential
    /// backoff with jitter after failure.
    ///
    /// The jitter keeps a fleet of clients that started together (an app update, a power cut) from
    /// hitting the servers in the same second forever after.
    public struct RefreshPolicy: Hashable, Sendable {
        /// The period between successful syncs. Default 1024 s (≈17 min, NTP's default maximum poll):
        /// with a 15 ppm clock the bound grows by only 15 ms in that time.
        public var interval: Duration
        /// The fraction of the period drawn at random around it: a delay lies in
        /// [interval × (1 − jitter), interval × (1 + jitter)]. Default 0.25, clamped to 0…0.5.
        public var jitter: Double
        /// No sync is scheduled sooner than this after the previous one, whatever the settings:
        /// 64 s, NTP's minimum poll interval, which public pools accept. Lower only for your own servers.
        public var minimumInterval: Duration
        /// The first retry delay after a failure; it doubles with each consecutive failure.
        /// Default 64 s.
        public var initialBackoff: Duration
        /// The longest retry delay. Default 1 hour.
        public var maximumBackoff: Duration
        /// The widest error bound the app accepts, or nil for a fixed period (``interval``).
        ///
        /// With a need, the clock syncs only when its bound, grown at the measured frequency
        /// interval (the prior before it is measured), would reach it: never at launch while a
        /// restored anchor meets it, and each sync for just before the bound reaches it again,
        /// jittered earlier and never sooner than ``minimumInterval``. A sync that cannot reach it
        /// (only a slow source answered) backs off as after a failure
        /// (``ClockEvent/needNotMet(bound:need:)``). A sync with a need ends at the first answers
        /// within half of it, and asks a name's addresses up to the largest odd count (three of
        /// four), the others only if those cannot decide. Default nil.
        public var maximumBound: Duration?

        /// Creates a policy; every parameter has the default described on its property.
        public init(
            interval: Duration = .seconds(1024), jitter: Double = 0.25,
            minimumInterval: Duration = .seconds(64),
            initialBackoff: Duration = .seconds(64), maximumBackoff: Duration = .seconds(3600),
            maximumBound: Duration? = nil
        ) {
            self.interval = interval
            self.jitter = jitter
            self.minimumInterval = minimumInterval
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.maximumBound = maximumBound
        }

        /// A policy for an app that needs its clock's bound within `maximumBound`, otherwise the
        /// defaults: it syncs when, and only when, the need requires it.
        public static func demand(maximumBound: Duration) -> RefreshPolicy {
            RefreshPolicy(maximumBound: maximumBound)
        }
    }
}

/// The pure state machine behind ``RefreshPolicy``: given each sync's outcome, the delay before the
/// next one. Deterministic for a given random generator, so tests can check the schedule exactly.
package struct RefreshSchedule: Hashable, Sendable {
    /// The policy.
    package var policy: NetworkClock.RefreshPolicy
    /// Consecutive failed syncs so far.
    package private(set) var consecutiveFailures = 0

    /// Creates a schedule with no failures yet.
    package init(policy: NetworkClock.RefreshPolicy) {
        self.policy = policy
    }

    /// The longest a demand-driven clock waits between syncs, whatever its bound: a day.
    static let longestWait = Duration.seconds(86_400)

    /// How long from now the bound stays within `need`, as `boundAfter` says it grows (the bound
    /// `d` from now on the clock's time base; nil when there is no time), up to ``longestWait``:
    /// nil when it is already past the need. Returned as a wait on a sleeper's clock (boot time),
    /// which a time daemon may run up to 500 ppm slower than the time base
    /// (``KernelDiscipline/slewLimit``): shortened by that much, so the wake is never late.
    package static func timeWithin(_ need: Duration, boundAfter: (Duration) -> Duration?) -> Duration? {
        guard let now = boundAfter(.zero), now <= need else { return nil }
        let sleeperRate = 1 - KernelDiscipline.slewLimit
        if let latest = boundAfter(longestWait), latest <= need { return longestWait * sleeperRate }
        // The bound only grows: halve the interval until it is within a millisecond.
        var (within, past) = (Duration.zero, longestWait)
        while past - within > .milliseconds(1) {
            let middle = within + (past - within) / 2
            if let bound = boundAfter(middle), bound <= need { within = middle } else { past = middle }
        }
        return within * sleeperRate
    }

    /// The delay before the next sync of a clock that needs its bound within `need` (the bound `d`
    /// from now is `boundAfter(d)`), after a sync that succeeded or failed: the time the bound
    /// stays within the need, drawn up to a quarter (``RefreshPolicy/jitter``) earlier, never
    /// sooner than the minimum interval. A sync whose bound does not meet the need backs off as a
    /// failure does (`needNotMet`).
    package mutating func nextDelay(
        afterSuccess succeeded: Bool, need: Duration, boundAfter: (Duration) -> Duration?,
        using random: inout some RandomNumberGenerator
    ) -> (delay: Duration, needNotMet: Bool) {
        guard succeeded else { return (nextDelay(afterSuccess: false, using: &random), false) }
        guard let within = Self.timeWithin(need, boundAfter: boundAfter) else {
            return (nextDelay(afterSuccess: false, using: &random), true)
        }
        consecutiveFailures = 0
        let jitter = min(max(policy.jitter, 0), 0.5)
        let factor = 1 - Double.random(in: 0...jitter, using: &random)
        return (max(max(policy.minimumInterval, .zero), within * factor), false)
    }

    /// The delay before the next sync after one that succeeded (`true`) or failed (`false`).
    package mutating func nextDelay(
        afterSuccess succeeded: Bool, using random: inout some RandomNumberGenerator
    )
        -> Duration
    {
        let jitter = min(max(policy.jitter, 0), 0.5)
        let floor = max(policy.minimumInterval, .zero)
        if succeeded {
            consecutiveFailures = 0
            let factor = 1 + Double.random(in: -jitter...jitter, using: &random)
            return max(floor, policy.interval * factor)
        }
        consecutiveFailures += 1
        let exponent = min(consecutiveFailures - 1, 30)
        let base = min(
            policy.initialBackoff * (1 << exponent), max(policy.maximumBackoff, policy.initialBackoff))
        // "Equal jitter": half the delay fixed, half random, so retries spread out but still back off.
        let factor = 0.5 + Double.random(in: 0...0.5, using: &random)
        return max(floor, base * factor)
    }
}
