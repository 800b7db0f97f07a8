import NetClockPlatform
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random bytes for values sent in the clear that must be unpredictable and never repeat (NTS
/// Unique Identifiers and authenticator nonces): the key stream of AES-128 in counter mode, its key
/// and first counter drawn from the kernel's CSPRNG.
///
/// Why not the kernel for every request: its getrandom costs about 2 ns a byte here even through
/// the vDSO (130 ns for a request's 48 bytes), where AES-NI makes them in a few. The construction
/// is NIST SP 800-90A's CTR_DRBG without its per-call update: that update exists so that a later
/// memory compromise cannot recompute earlier outputs, and these outputs are public (they travel in
/// the packets). A new key is drawn after every 2²⁰ bytes and in the child after a `fork` (the
/// child must not repeat the parent's stream).
package final class KeystreamRandom: Sendable {
    /// The process's generator, keyed from the kernel's CSPRNG.
    package static let shared = KeystreamRandom { () -> [UInt8]? in
        var seed = [UInt8](repeating: 0, count: 32)
        guard case .success = seed.withUnsafeMutableBytes({ Syscalls.fillRandom($0) }) else { return nil }
        return seed
    }

    /// Bytes drawn under one key before the next.
    static let bytesPerKey = 1 << 20

    /// The keyed stream and where it stands, changed in place under the lock.
    private struct Stream: @unchecked Sendable {  // reached only under `stream`'s lock
        /// Counter mode under the key; nil before the first key or after a failure.
        var ctr: AESCTR?
        var counter = SIVBlock.zero
        var drawn = 0
        var forkGeneration = 0
    }

    private let stream = Mutex(Stream())
    /// Where each key and first counter come from: 32 bytes, or nil when there are none.
    private let seeds: @Sendable () -> [UInt8]?

    /// A generator keyed from `seeds` (the tests give known ones).
    init(seeds: @escaping @Sendable () -> [UInt8]?) {
        self.seeds = seeds
        _ = Self.forkWatch
    }

    /// Fills `buffer` with random bytes; false when no key could be drawn or AES failed (the
    /// caller falls back to the kernel).
    package func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        fill(buffer, forkGeneration: forkGeneration.load(ordering: .acquiring))
    }

    /// ``fill(_:)`` as the child of `forkGeneration` forks: a new generation draws a new key.
    func fill(_ buffer: UnsafeMutableRawBufferPointer, forkGeneration generation: Int) -> Bool {
        guard !buffer.isEmpty else { return true }
        guard buffer.count <= Self.bytesPerKey else { return false }
        return stream.withLock { stream in
            if stream.ctr == nil || stream.forkGeneration != generation
                || stream.drawn + buffer.count > Self.bytesPerKey
            {
                rekey(&stream, generation: generation)
            }
            guard let ctr = stream.ctr else { return false }
            do {
                try ctr.apply(counter: stream.counter, nil, to: buffer)
            } catch {
                stream.ctr = nil
                return false
            }
            let blocks = UInt64((buffer.count + 15) / 16)
            let (low, carry) = stream.counter.low.addingReportingOverflow(blocks)
            stream.counter = SIVBlock(high: stream.counter.high &+ (carry ? 1 : 0), low: low)
            stream.drawn += buffer.count
            return true
        }
    }

    /// Keys `stream` afresh (the seed's first 16 bytes) from a first counter (its last 16); leaves
    /// it without a key when there is no seed.
    private func rekey(_ stream: inout Stream, generation: Int) {
        stream.ctr = nil
        guard let seed = seeds(), seed.count == 32, let ctr = try? AESCTR(key: Array(seed[..<16])) else {
            return
        }
        stream.ctr = ctr
        stream.counter = seed.withUnsafeBytes { SIVBlock(UnsafeRawBufferPointer(rebasing: $0[16...])) }
        stream.drawn = 0
        stream.forkGeneration = generation
    }

    /// Counts forks in the child, registered once per process, so that a child keys its own stream.
    private static let forkWatch: Void = {
        _ = pthread_atfork(nil, nil) { forkGeneration.add(1, ordering: .releasing) }
    }()
}

/// How many times this process is the child of a `fork` since it started (``KeystreamRandom``).
private let forkGeneration = Atomic<Int>(0)
