import NetClockPlatform
import NetClockTestSupport

extension HTTPDelayDistribution {
    /// Draws one delay (never negative) using `generator`.
    func sample(using generator: inout SplitMix64) -> Duration {
        switch self {
        case .none:
            return .zero
        case .constant(let delay):
            return max(.zero, delay)
        case .uniform(let a, let b):
            let low = max(.zero, min(a, b))
            let high = max(.zero, max(a, b))
            let (seconds, attoseconds) = (high - low).components
            let wholeSeconds = UInt64(clamping: min(seconds, 1_000_000_000))
            let spanNanoseconds = wholeSeconds * 1_000_000_000 + UInt64(clamping: attoseconds / 1_000_000_000)
            guard spanNanoseconds > 0 else { return low }
            return low + .nanoseconds(Int64(clamping: generator.next() % (spanNanoseconds + 1)))
        case .exponential(let mean, let maximum):
            // 53 random bits give u in [0, 1); −ln(1 − u) is exponential with mean 1.
            let u = Double(generator.next() >> 11) / Double(UInt64(1) << 53)
            let meanSeconds = Double(mean.components.seconds) + Double(mean.components.attoseconds) / 1e18
            let nanoseconds = -meanSeconds * ServerSyscalls.naturalLogarithm(1 - u) * 1e9
            let cap = max(.zero, maximum)
            guard nanoseconds.isFinite, nanoseconds < 9e18 else { return cap }
            return max(.zero, min(.nanoseconds(Int64(nanoseconds.rounded())), cap))
        }
    }
}
