import LoopbackServers
import Synchronization
import Testing

@testable import NetClockTLS

/// The NTS random bytes: AES-128's key stream under seeds from a source, checked against `openssl
/// enc -aes-128-ctr` over zeros, with a new key after a fork and after ``KeystreamRandom/bytesPerKey``.
@Suite(.enabled(if: TestCertificates.runnable, "needs the openssl command"))
struct KeystreamRandomTests {
    /// Hands out `seeds` in order, then nil.
    final class Seeds: Sendable {
        private let left: Mutex<[[UInt8]]>
        init(_ seeds: [[UInt8]]) { left = Mutex(seeds) }
        var source: @Sendable () -> [UInt8]? {
            { [self] in left.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
        }
        var remaining: Int { left.withLock { $0.count } }
    }

    static let first = (0..<32).map { UInt8($0 * 7 &+ 1) }
    static let second = (0..<32).map { UInt8(255 - $0) }

    /// `count` bytes drawn in one call.
    static func draw(_ random: KeystreamRandom, _ count: Int, generation: Int = 0) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let filled = bytes.withUnsafeMutableBytes { random.fill($0, forkGeneration: generation) }
        try #require(filled)
        return bytes
    }

    /// The key stream `openssl enc -aes-128-ctr` makes under `seed` (key, then first counter).
    static func stream(_ seed: [UInt8], _ count: Int) throws -> [UInt8] {
        try AESCTRTests.openssl(
            key: Array(seed[..<16]), counter: Array(seed[16...]), [UInt8](repeating: 0, count: count))
    }

    @Test("draws are consecutive whole blocks of AES-128-CTR under the seed; a partial block is skipped")
    func drawsFollowTheKeyStream() throws {
        let seeds = Seeds([Self.first])
        let random = KeystreamRandom(seeds: seeds.source)
        let expected = try Self.stream(Self.first, 16 * 12)
        // 48 bytes (3 blocks), then 20 (2 blocks, the last 12 bytes of the 2nd unused), then 100.
        #expect(try Self.draw(random, 48) == Array(expected[0..<48]))
        #expect(try Self.draw(random, 20) == Array(expected[48..<68]))
        #expect(try Self.draw(random, 100) == Array(expected[80..<180]))
        #expect(seeds.remaining == 0)
    }

    @Test("the child of a fork draws under a new key, never the parent's stream")
    func aForkDrawsANewKey() throws {
        let seeds = Seeds([Self.first, Self.second])
        let random = KeystreamRandom(seeds: seeds.source)
        #expect(try Self.draw(random, 48, generation: 0) == Array(try Self.stream(Self.first, 48)))
        #expect(try Self.draw(random, 48, generation: 1) == Array(try Self.stream(Self.second, 48)))
    }

    @Test("a new key after 2²⁰ bytes; no seed, no bytes (the caller falls back to the kernel)")
    func aNewKeyAfterTheLimitAndNoneWithoutASeed() throws {
        let seeds = Seeds([Self.first, Self.second])
        let random = KeystreamRandom(seeds: seeds.source)
        _ = try Self.draw(random, KeystreamRandom.bytesPerKey - 32)
        #expect(seeds.remaining == 1)
        #expect(try Self.draw(random, 48) == Array(try Self.stream(Self.second, 48)))
        _ = try Self.draw(random, KeystreamRandom.bytesPerKey - 48)
        var bytes = [UInt8](repeating: 0, count: 48)
        #expect(!bytes.withUnsafeMutableBytes { random.fill($0, forkGeneration: 0) })
    }

    @Test("the process's generator: 10,000 draws of 48 bytes all differ, bytes evenly spread")
    func theSharedGeneratorDoesNotRepeat() {
        var seen = Set<[UInt8]>()
        var counts = [Int](repeating: 0, count: 256)
        for _ in 0..<10_000 {
            var bytes = [UInt8](repeating: 0, count: 48)
            #expect(bytes.withUnsafeMutableBytes { KeystreamRandom.shared.fill($0) })
            seen.insert(bytes)
            for byte in bytes { counts[Int(byte)] += 1 }
        }
        #expect(seen.count == 10_000)
        // 480,000 bytes: 1,875 expected per value, σ ≈ 43; 10σ is far outside any honest draw.
        #expect(counts.allSatisfy { abs($0 - 1_875) < 430 }, "\(counts.min() ?? 0)…\(counts.max() ?? 0)")
    }
}
