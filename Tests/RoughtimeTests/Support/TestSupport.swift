import Foundation
import LoopbackServers
import NetClockTLS
import Roughtime
import SNTP
import Synchronization
import Testing
import TimeValues

/// Fixed keys, nonces and replies for tests that run without sockets.
enum TestSupport {
    /// A long-term key from a fixed seed, different for each `number`.
    static func key(_ number: UInt64) throws -> Ed25519.PrivateKey {
        var generator = SplitMix64(seed: 0x5EED_0000 + number)
        return try Ed25519.PrivateKey.generate(using: &generator)
    }

    /// `count` bytes from a fixed seed.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return SystemRoughtimeRandom.bytes(count, using: &generator)
    }

    /// A fake server's configuration with the long-term key `number`.
    static func configuration(
        key number: UInt64 = 1, offset: Duration = .zero, behaviour: FakeRoughtimeServer.Behaviour = .normal
    ) throws -> FakeRoughtimeServer.Configuration {
        FakeRoughtimeServer.Configuration(longTermKey: try key(number), offset: offset, behaviour: behaviour)
    }

    /// The fake server's answers to `requests`, all in one batch at `now`.
    static func replies(
        to requests: [RoughtimeRequest], at now: UnixTime, configuration: FakeRoughtimeServer.Configuration,
        seed: UInt64 = 7
    ) throws -> [FakeRoughtimeServer.Answer] {
        var responder = try FakeRoughtimeServer.Responder(seed: seed)
        return responder.answer(requests.map(\.bytes), at: now, configuration: configuration)
    }

    /// The fake server's reply to one request at `now`; a test failure when there is none.
    static func reply(
        to request: RoughtimeRequest, at now: UnixTime, configuration: FakeRoughtimeServer.Configuration,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [UInt8] {
        let answer = try #require(try replies(to: [request], at: now, configuration: configuration).first)
        return try #require(
            answer.reply, "no reply: \(answer.dropped ?? "?")", sourceLocation: sourceLocation)
    }

    /// A request with a nonce from `seed`.
    static func request(
        versions: [RoughtimeVersion] = RoughtimeVersion.defaultOffer, publicKey: [UInt8]?, seed: UInt64 = 11
    ) throws -> RoughtimeRequest {
        let length = versions.contains(.google) ? 64 : 32
        return try RoughtimeRequest(
            nonce: bytes(length, seed: seed), versions: versions, publicKey: publicKey)
    }

    /// 2026-03-01T12:00:00Z.
    static let now = UnixTime(seconds: 1_772_366_400)

    /// The bytes of a hex string.
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}

extension CompactBytes {
    /// The full bytes: the prefix, then zeros.
    var bytes: [UInt8] {
        let prefix = TestSupport.hex(self.prefix)
        return prefix + [UInt8](repeating: 0, count: max(0, length - prefix.count))
    }
}

/// Base64 for tests (Foundation's, through `Data`).
enum Base64 {
    static func decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text.filter { !$0.isWhitespace }).map { Array($0) }
    }

    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}

/// Nonces from a fixed seed.
final class SeededRandom: RoughtimeRandomSource {
    private let generator: Mutex<SplitMix64>
    init(seed: UInt64) { generator = Mutex(SplitMix64(seed: seed)) }
    func bytes(_ count: Int) -> [UInt8] {
        generator.withLock { SystemRoughtimeRandom.bytes(count, using: &$0) }
    }
}

/// A measurement sequence built without sockets: each server is a fake server's responder, the
/// replies are stamped on simulated clocks.
struct SimulatedChain {
    var chain = RoughtimeChain()
    var servers: [FakeRoughtimeServer.Configuration]
    var responders: [FakeRoughtimeServer.Responder]
    let random = SeededRandom(seed: 99)
    /// The true time and the local monotonic instant, advanced by every exchange.
    var trueTime = TestSupport.now
    var monotonic = MonotonicInstant(sinceOrigin: .seconds(1000))

    init(offsets: [Duration]) throws {
        servers = try offsets.enumerated().map {
            try TestSupport.configuration(key: UInt64($0.offset + 1), offset: $0.element)
        }
        responders = try offsets.indices.map { try FakeRoughtimeServer.Responder(seed: UInt64(50 + $0)) }
    }

    /// Asks server `index` (a 20 ms round trip, the server signing halfway) and adds the link.
    mutating func ask(_ index: Int) throws {
        let next = try chain.nextNonce(length: 32, random: random)
        let request = try RoughtimeRequest(
            nonce: next.nonce, versions: [.rfc], publicKey: servers[index].publicKey)
        let sent = monotonic
        let answer = responders[index].answer(
            [request.bytes], at: trueTime + .milliseconds(10), configuration: servers[index])
        let reply = try #require(answer.first?.reply)
        monotonic = monotonic + .milliseconds(20)
        trueTime = trueTime + .milliseconds(20)
        let response = try RoughtimeResponse(
            verifying: reply, for: request, publicKey: servers[index].publicKey)
        chain.append(
            RoughtimeChain.Link(
                server: index, publicKey: servers[index].publicKey, rand: next.rand,
                measurement: RoughtimeMeasurement(
                    request: request, response: response, sentAt: sent, receivedAt: monotonic)))
    }
}
