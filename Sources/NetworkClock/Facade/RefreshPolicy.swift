import SNTP
import TimeBase

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

        /// Creates a policy; every parameter has the default described on its property.
        public init(
            interval: Duration = .seconds(1024), jitter: Double = 0.25,
            minimumInterval: Duration = .seconds(64),
            initialBackoff: Duration = .seconds(64), maximumBackoff: Duration = .seconds(3600)
        ) {
            self.interval = interval
            self.jitter = jitter
            self.minimumInterval = minimumInterval
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
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
