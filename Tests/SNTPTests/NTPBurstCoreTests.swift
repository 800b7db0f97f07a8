import TimeDoubles
import LoopbackServers
import NetClockPlatform
import Testing
import TimeValues

@testable import SNTP

/// The SNTP burst core (``NTPBurst``) on a manual clock: spacing, timeouts, deadlines, the
/// etiquette's first-send spacing, Kiss-o'-Death, matching replies to requests, bounded
/// bookkeeping, burst selection and cancellation. Every instant is exact: no socket, no sleep,
/// no load dependence.
@Suite struct NTPBurstCoreTests {
    /// The instant the tests start at, and the wall-clock time it maps to.
    static let start = MonotonicInstant(sinceOrigin: .seconds(1_000))
    static let mapping = TimeMapping(
        wall: UnixTime(sinceEpoch: .seconds(1_796_040_000)), monotonic: start)
    static let address = SocketAddress(ipv4: (127, 0, 0, 1), port: 123)

    /// Four requests two seconds apart, each waiting a second.
    static let options = QueryOptions(samples: 4, interval: .seconds(2), timeout: .seconds(1))

    /// A burst under test, driven by hand from ``start``.
    static func driver(
        options: QueryOptions = options, deadline: MonotonicInstant? = nil, notBefore: MonotonicInstant? = nil
    ) -> ManualDatagramDriver<NTPBurst> {
        ManualDatagramDriver(
            NTPBurst(
                to: address, options: options, mapping: mapping, deadline: deadline, notBefore: notBefore),
            at: start)
    }

    /// What an honest server whose clock is `offset` ahead answers to `request` received at
    /// `instant` (T2), sent `hold` later (T3).
    static func reply(
        to request: [UInt8], at instant: MonotonicInstant, offset: Duration = .milliseconds(250),
        hold: Duration = .microseconds(20), configure: (inout NTPPacket) -> Void = { _ in }
    ) throws -> [UInt8] {
        let header = try NTPPacket(decoding: request)
        let received = mapping.wallTime(at: instant) + offset
        var packet = FakeNTPServer.ReplyBuilder.correctReply(
            to: header, receiveTime: received, transmitTime: received + hold,
            configuration: FakeNTPServer.Configuration())
        configure(&packet)
        return packet.encoded()
    }

    /// The server's hold time between T2 and T3 in ``reply(to:at:offset:hold:configure:)``.
    static let hold = Duration.microseconds(20)

    /// Waits for the next request the burst sends (at once if one is in flight and unanswered,
    /// counting `answered`), then answers it after `oneWay` each way and the server's hold.
    static func answer(
        _ driver: inout ManualDatagramDriver<NTPBurst>, request index: Int,
        oneWay: Duration = .milliseconds(5),
        offset: Duration = .milliseconds(250)
    ) throws {
        while driver.sent.count <= index, let wake = driver.wake { driver.advance(to: wake) }
        let request = try #require(driver.sent.count > index ? driver.sent[index] : nil)
        let bytes = try reply(to: request.bytes, at: request.at + oneWay, offset: offset)
        driver.advance(to: request.at + oneWay * 2 + hold)
        driver.deliver(bytes)
    }

    @Test func requestsAreSpacedByTheIntervalAndEachSampleIsExact() throws {
        var driver = Self.driver()
        for index in 0..<4 { try Self.answer(&driver, request: index) }
        let result = try #require(driver.outcome, "finished after the fourth reply")
        #expect(driver.sent.map { $0.at - Self.start } == [.zero, .seconds(2), .seconds(4), .seconds(6)])
        #expect(result.samples.count == 4)
        for sample in result.samples {
            // 5 ms each way and 20 µs held: exact to the NTP timestamp resolution (2^-32 s).
            #expect(abs(sample.delay - .milliseconds(10)) < .nanoseconds(2))
            #expect(abs(sample.offset - .milliseconds(250)) < .nanoseconds(2))
        }
    }

    @Test func aSilentServerTimesOutEveryRequestAndTheNextIsSpacedFromTheLastSend() {
        var driver = Self.driver()
        driver.runUntilFinished()
        let result = driver.outcome
        #expect(result?.exchanges.map(\.outcome) == Array(repeating: .timedOut, count: 4))
        #expect(driver.sent.map { $0.at - Self.start } == [.zero, .seconds(2), .seconds(4), .seconds(6)])
        #expect(driver.now - Self.start == .seconds(7), "the last request waits its full second")
        #expect(result?.failure == .timedOut)
    }

    @Test func aTimeoutLongerThanTheIntervalDelaysTheNextRequestUntilItEnds() {
        var driver = Self.driver(
            options: QueryOptions(samples: 3, interval: .seconds(1), timeout: .seconds(3)))
        driver.runUntilFinished()
        #expect(driver.sent.map { $0.at - Self.start } == [.zero, .seconds(3), .seconds(6)])
    }

    @Test func noRequestStartsAtOrAfterTheDeadlineAndTheLastWaitIsClipped() {
        var driver = Self.driver(deadline: Self.start + .milliseconds(4_500))
        driver.runUntilFinished()
        #expect(driver.sent.map { $0.at - Self.start } == [.zero, .seconds(2), .seconds(4)])
        #expect(driver.now - Self.start == .milliseconds(4_500), "the third request waits until the deadline")
        #expect(driver.outcome?.exchanges.count == 3)
    }

    @Test func theFirstRequestWaitsForTheEtiquetteSpacingUnlessThatPassesTheDeadline() throws {
        var spaced = Self.driver(notBefore: Self.start + .milliseconds(1_500))
        #expect(spaced.sent.isEmpty && spaced.wake == Self.start + .milliseconds(1_500))
        spaced.advance(by: .milliseconds(1_499))
        #expect(spaced.sent.isEmpty)
        spaced.advance(by: .milliseconds(1))
        #expect(spaced.sent.count == 1)

        let hurried = Self.driver(deadline: Self.start + .seconds(1), notBefore: Self.start + .seconds(2))
        #expect(hurried.sent.map(\.at) == [Self.start], "waiting would pass the deadline: at once")
    }

    @Test(arguments: ["RATE", "DENY", "RSTR"])
    func aKissOfDeathEndsTheBurstAndTheEtiquetteHonoursIt(code: String) throws {
        var driver = Self.driver()
        let request = try #require(driver.sent.last)
        driver.advance(by: .milliseconds(10))
        driver.deliver(
            try Self.reply(to: request.bytes, at: request.at + .milliseconds(5)) { packet in
                packet.stratum = NTPPacket.Stratum(rawValue: 0)
                packet.leap = .alarm
                packet.referenceID = NTPPacket.ReferenceID(ascii: code)
            })
        let result = try #require(driver.outcome, "a kiss ends the burst at once")
        #expect(driver.sent.count == 1)
        #expect(result.kissCode == NTPPacket.KissCode(rawValue: code))

        var etiquette = SourceEtiquette()
        etiquette.record(result, at: driver.now, rateBackoff: .seconds(64))
        let later = driver.now + .seconds(10)
        switch etiquette.admission(at: later, spacing: .seconds(2)) {
        case .backingOff(let until, let left):
            #expect(code == "RATE" && until == driver.now + .seconds(64) && left == .seconds(54))
        case .dropped(let kiss):
            #expect(code != "RATE" && kiss == NTPPacket.KissCode(rawValue: code))
        case .allowed:
            Issue.record("a \(code) kiss left the address allowed")
        }
        #expect(etiquette.consecutiveFailures == 1)
    }

    @Test func theEtiquetteSpacesBurstsAndForgetsNothingWhenNothingWasSent() throws {
        var driver = Self.driver(
            options: QueryOptions(samples: 1, interval: .seconds(2), timeout: .seconds(1)))
        try Self.answer(&driver, request: 0)
        let result = try #require(driver.outcome)
        var etiquette = SourceEtiquette()
        etiquette.record(result, at: driver.now, rateBackoff: .seconds(64))
        #expect(
            etiquette.admission(at: driver.now + .milliseconds(500), spacing: .seconds(2))
                == .allowed(notBefore: driver.now + .seconds(2)))
        #expect(
            etiquette.admission(at: driver.now + .seconds(3), spacing: .seconds(2))
                == .allowed(notBefore: nil))
        #expect(etiquette.consecutiveFailures == 0)
        let unchanged = etiquette
        etiquette.record(
            ServerQueryResult(address: Self.address, exchanges: [], mapping: Self.mapping),
            at: driver.now + .seconds(9),
            rateBackoff: .seconds(64))
        #expect(etiquette == unchanged)
    }

    @Test func aSpoofedReplyIsRejectedAndTheRealOneStillAccepted() throws {
        var driver = Self.driver(options: QueryOptions(samples: 1, interval: .zero, timeout: .seconds(1)))
        let request = try #require(driver.sent.last)
        driver.advance(by: .milliseconds(3))
        var spoofed = try Self.reply(
            to: request.bytes, at: request.at + .milliseconds(1), offset: .seconds(3_600))
        spoofed[24] ^= 0x01  // the origin no longer echoes our nonce
        driver.deliver(spoofed)
        #expect(driver.outcome == nil, "the burst goes on waiting")
        driver.advance(to: request.at + .milliseconds(10) + Self.hold)
        driver.deliver(try Self.reply(to: request.bytes, at: request.at + .milliseconds(5)))
        let record = try #require(driver.outcome?.exchanges.first)
        #expect(record.rejected.map(\.reason) == [.originMismatch])
        #expect(abs((record.sample?.offset ?? .zero) - .milliseconds(250)) < .nanoseconds(2))
    }

    /// A flood of spoofed datagrams within one timeout is counted, and only the first few kept.
    @Test func aFloodOfSpoofedRepliesIsCountedNotStored() throws {
        var driver = Self.driver(options: QueryOptions(samples: 1, interval: .zero, timeout: .seconds(1)))
        let request = try #require(driver.sent.last)
        var spoofed = try Self.reply(to: request.bytes, at: request.at)
        spoofed[31] ^= 0xFF
        for _ in 0..<10_000 {
            driver.advance(by: .microseconds(10))
            driver.deliver(spoofed)
        }
        driver.runUntilFinished()
        let record = try #require(driver.outcome?.exchanges.first)
        #expect(record.outcome == .timedOut)
        #expect(record.rejectedCount == 10_000)
        #expect(record.rejected.count == ExchangeRecord.maximumKeptRejections)
    }

    @Test func aLateReplyIsStaleAndADuplicateIsRejected() throws {
        var driver = Self.driver(
            options: QueryOptions(samples: 3, interval: .seconds(2), timeout: .seconds(1)))
        let first = try #require(driver.sent.last)
        // The first request's reply comes after its timeout, while the second is in flight.
        driver.advance(to: Self.start + .milliseconds(2_500))
        driver.deliver(try Self.reply(to: first.bytes, at: first.at + .milliseconds(10)))
        try Self.answer(&driver, request: 1)
        // The second's reply again, between requests: a duplicate, counted against it.
        let second = driver.sent[1]
        driver.advance(by: .milliseconds(100))
        driver.deliver(try Self.reply(to: second.bytes, at: second.at + .milliseconds(5)))
        try Self.answer(&driver, request: 2)
        let result = try #require(driver.outcome)
        #expect(
            result.exchanges.map(\.rejected).map { $0.map(\.reason) } == [
                [], [.staleReply, .duplicateReply], [],
            ])
        #expect(result.samples.count == 2)
    }

    @Test func theMinimumDelaySampleIsTheBurstsBest() throws {
        var driver = Self.driver()
        let oneWays = [Duration.milliseconds(9), .milliseconds(2), .milliseconds(30), .milliseconds(4)]
        for (index, oneWay) in oneWays.enumerated() {
            try Self.answer(&driver, request: index, oneWay: oneWay)
        }
        let result = try #require(driver.outcome)
        #expect(result.best == result.samples[1])
        #expect(abs((result.best?.delay ?? .zero) - .milliseconds(4)) < .nanoseconds(2))
    }

    @Test func aRefusedOrFailedSocketEndsTheBurst() throws {
        var refused = Self.driver()
        refused.fail(.connectionRefused(address: Self.address))
        #expect(refused.outcome?.exchanges.map(\.outcome) == [.refused])
        var failed = Self.driver()
        failed.advance(by: .seconds(2))
        failed.fail(
            .systemCall(operation: "send", errno: .networkUnreachable, reason: "Network is unreachable"))
        #expect(failed.outcome?.exchanges.count == 2)
        #expect(
            failed.outcome?.failure
                == .transport(
                    .systemCall(
                        operation: "send", errno: .networkUnreachable, reason: "Network is unreachable")))
    }

    /// Cancelling ends the burst at once: the request in flight counts as timed out, nothing more is
    /// sent, and the outcome is there for the caller.
    @Test func cancellingEndsTheBurstWithWhatItHas() throws {
        var driver = Self.driver()
        try Self.answer(&driver, request: 0)
        driver.advance(by: .milliseconds(2_500))
        driver.cancel()
        let result = try #require(driver.outcome)
        #expect(result.exchanges.map(\.outcome.isSample) == [true, false])
        #expect(driver.wake == nil && driver.sent.count == 2)
    }
}

extension ExchangeRecord.Outcome {
    /// Whether this is a sample.
    fileprivate var isSample: Bool {
        if case .sample = self { return true }
        return false
    }
}
