import NetClockPlatform
import NetClockTestSupport

extension FakeNTPServer {
    /// How long a simulated network path or the server's processing takes, drawn afresh for every
    /// request from the server's seeded generator.
    ///
    /// Negative parameters are treated as zero: a sampled delay is never negative.
    package indirect enum DelayDistribution: Hashable, Sendable {
        /// No delay.
        case none
        /// Always the same delay.
        case constant(Duration)
        /// Uniformly distributed between the two bounds (in either order).
        case uniform(Duration, Duration)
        /// Exponentially distributed with the given mean: mostly short, with a long tail, like
        /// queueing delay on a busy path.
        case exponential(mean: Duration)
        /// A sample of `base`, plus, with the given probability (0–1), an extra delay drawn uniformly
        /// from `range`: occasional heavy spikes on top of ordinary jitter.
        case spikes(base: DelayDistribution, probability: Double, range: ClosedRange<Duration>)

        /// Draws one delay.
        package func sample(using generator: inout some RandomNumberGenerator) -> Duration {
            switch self {
            case .none:
                return .zero
            case .constant(let delay):
                return max(delay, .zero)
            case .uniform(let a, let b):
                return Self.uniform(min(a, b), max(a, b), using: &generator)
            case .exponential(let mean):
                guard mean > .zero else { return .zero }
                // u in (0, 1], so −ln(u) is finite (at most about 37).
                let u = 1 - Double.random(in: 0..<1, using: &generator)
                return mean * -ServerSyscalls.naturalLogarithm(u)
            case .spikes(let base, let probability, let range):
                let ordinary = base.sample(using: &generator)
                guard Double.random(in: 0..<1, using: &generator) < probability else { return ordinary }
                return ordinary + Self.uniform(range.lowerBound, range.upperBound, using: &generator)
            }
        }

        /// The smallest delay this distribution can produce.
        package var minimum: Duration {
            switch self {
            case .none, .exponential: return .zero
            case .constant(let delay): return max(delay, .zero)
            case .uniform(let a, let b): return max(min(a, b), .zero)
            case .spikes(let base, _, _): return base.minimum
            }
        }

        private static func uniform(
            _ low: Duration, _ high: Duration, using generator: inout some RandomNumberGenerator
        ) -> Duration {
            let low = max(low, .zero)
            let high = max(high, low)
            guard high > low else { return low }
            return low + (high - low) * Double.random(in: 0..<1, using: &generator)
        }
    }
}
