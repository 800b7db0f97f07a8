/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, seedable generator whose output for a
/// given seed is the same on every run and platform, so the fake servers' delays and garbage bytes,
/// the benchmarks and the randomised tests are reproducible. Not for cryptography.
package struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The generator's whole state: the next call advances it by the golden-ratio increment.
    package private(set) var state: UInt64

    /// Creates a generator whose sequence is determined by `seed`.
    package init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 pseudo-random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
