import Foundation
import LoopbackServers

/// The simulation's randomness: one ``SplitMix64`` stream per client and purpose, each determined by
/// the run's seed alone, so a run is the same for a seed whatever the order clients are simulated
/// in, and one policy's draws never shift another's.
package struct FleetRandom: RandomNumberGenerator, Sendable {
    /// What a stream is for.
    package enum Stream: UInt64, Sendable {
        /// The client's day: launches, sessions, suspends, network changes, reboots, oscillator.
        case schedule = 1
        /// A policy's round trips, sync errors and jitter (one per policy, offset by its index).
        case policy = 16
    }

    private var generator: SplitMix64

    /// The stream for `client`'s `stream` (plus `index`, for one per policy) under `seed`.
    package init(seed: UInt64, client: Int, stream: Stream, index: Int = 0) {
        var mixer = SplitMix64(seed: seed)
        let base = mixer.next()
        var key = SplitMix64(seed: base ^ (UInt64(truncatingIfNeeded: client) &* 0xD1B5_4A32_D192_ED03))
        let clientKey = key.next()
        generator = SplitMix64(seed: clientKey ^ ((stream.rawValue + UInt64(index)) &* 0x9E37_79B9_7F4A_7C15))
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 { generator.next() }

    /// Uniform in [0, 1), 53 bits.
    package mutating func unit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// Uniform in [`lower`, `upper`).
    package mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * unit()
    }

    /// Exponential with mean `mean`.
    package mutating func exponential(mean: Double) -> Double {
        -mean * log(1 - unit())
    }

    /// Standard normal (Box–Muller).
    package mutating func normal() -> Double {
        let u = max(unit(), Double.leastNonzeroMagnitude)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * unit())
    }

    /// Log-normal with median `median` and σ `sigma` of its logarithm.
    package mutating func logNormal(median: Double, sigma: Double) -> Double {
        median * exp(sigma * normal())
    }

    /// Poisson with mean `mean` (Knuth's product of uniforms; the means here are small).
    package mutating func poisson(mean: Double) -> Int {
        let limit = exp(-mean)
        var count = 0
        var product = unit()
        while product > limit {
            count += 1
            product *= unit()
        }
        return count
    }
}
