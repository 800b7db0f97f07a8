import TimeDoubles
import LoopbackServers
import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import Testing
import TimeValues

@testable import NTSClient

/// NTS on the burst core, on a manual clock: the same ``NTPBurst`` as plain SNTP with
/// ``NTSPacketProtection`` as the transform of its packets. The server is the fake NTS server's
/// pure responder (its cookie jar seals real keys), so every cookie, placeholder, authenticator and
/// NAK is real; only sockets and time are simulated.
@Suite struct NTSBurstCoreTests {
    static let start = MonotonicInstant(sinceOrigin: .seconds(5_000))
    static let mapping = TimeMapping(wall: UnixTime(sinceEpoch: .seconds(1_796_040_000)), monotonic: start)
    static let address = SocketAddress(ipv4: (127, 0, 0, 1), port: 123)
    static let options = QueryOptions(samples: 4, interval: .seconds(1), timeout: .milliseconds(500))
    static let offset = Duration.milliseconds(-750)

    /// A server's cookie jar and an association whose keys and `cookies` cookies came from it.
    static func association(cookies: Int = 8) -> (
        NTSAssociation, FakeNTSServer.CookieJar, FakeNTSServer.CookieJar.Keys
    ) {
        let jar = FakeNTSServer.CookieJar()
        let keys = FakeNTSServer.CookieJar.Keys(c2s: NTSRandom.bytes(32), s2c: NTSRandom.bytes(32))
        let result = NTSKeyExchangeResult(
            keyExchangeAddress: SocketAddress(ipv4: (127, 0, 0, 1), port: 4460), ntpHost: "127.0.0.1",
            ntpPort: 123, aead: 15, clientToServerKey: keys.c2s, serverToClientKey: keys.s2c,
            cookies: (0..<cookies).compactMap { _ in jar.cookie(for: keys) }, warnings: [])
        return (NTSAssociation(result), jar, keys)
    }

    /// The fake server's answer to `request` received at `instant`, behaving as `behaviour`.
    static func respond(
        to request: [UInt8], at instant: MonotonicInstant, jar: FakeNTSServer.CookieJar,
        behaviour: FakeNTSServer.Behaviour = .normal
    ) -> FakeNTSServer.NTPOutcome {
        var configuration = FakeNTSServer.Configuration(
            certificateChainFile: "unused", privateKeyFile: "unused", offset: offset, behaviour: behaviour)
        configuration.behaviour = behaviour
        let received = mapping.wallTime(at: instant) + offset
        return FakeNTSServer.NTPResponder.respond(
            to: request, receiveTime: received, transmitTime: received + .microseconds(10),
            configuration: configuration, jar: jar)
    }

    /// A burst protected by `association`, started at ``start``.
    static func driver(_ association: NTSAssociation) -> ManualDatagramDriver<NTPBurst> {
        ManualDatagramDriver(
            NTPBurst(
                to: address, options: options, mapping: mapping,
                protection: NTSPacketProtection(association: association)),
            at: start)
    }

    /// Answers every request 2 ms each way, as the server with `behaviour` would.
    static func run(
        _ driver: inout ManualDatagramDriver<NTPBurst>, jar: FakeNTSServer.CookieJar,
        behaviour: FakeNTSServer.Behaviour = .normal
    ) -> [FakeNTSServer.NTPOutcome] {
        var outcomes: [FakeNTSServer.NTPOutcome] = []
        while driver.outcome == nil {
            guard driver.sent.count > outcomes.count else {
                guard let wake = driver.wake else { break }
                driver.advance(to: wake)
                continue
            }
            let request = driver.sent[outcomes.count]
            let outcome = respond(
                to: request.bytes, at: request.at + .milliseconds(2), jar: jar, behaviour: behaviour)
            outcomes.append(outcome)
            driver.advance(to: request.at + .milliseconds(4) + .microseconds(10))
            if let reply = outcome.reply { driver.deliver(reply) }
        }
        return outcomes
    }

    @Test func everyRequestSpendsOneFreshCookieAndRefillsTheAssociation() throws {
        let (association, jar, _) = Self.association(cookies: 3)
        var driver = Self.driver(association)
        let outcomes = Self.run(&driver, jar: jar)
        let result = try #require(driver.outcome)
        #expect(result.samples.count == 4)
        #expect(outcomes.allSatisfy { $0.authenticated })
        // Three cookies at first: the first request asks for five more (placeholders to refill to
        // eight), each later one for one.
        #expect(outcomes.map(\.cookiesIssued) == [6, 1, 1, 1])
        #expect(association.cookieCount == 8)
        let spent = driver.sent.compactMap { try? NTSPacket(parsing: $0.bytes) }.map {
            $0.fields.first { $0.field.type == .cookie }?.field.body ?? []
        }
        #expect(Set(spent).count == 4, "no cookie is sent twice")
        for sample in result.samples {
            #expect(abs(sample.offset - Self.offset) < .nanoseconds(2))
        }
    }

    @Test func aForgedReplyIsDiscardedAndTheAuthenticOneAccepted() throws {
        let (association, jar, _) = Self.association()
        var driver = Self.driver(association)
        let request = try #require(driver.sent.first)
        let outcome = Self.respond(to: request.bytes, at: request.at + .milliseconds(2), jar: jar)
        var forged = try #require(outcome.reply)
        forged[forged.count - 1] ^= 0x01
        driver.advance(by: .milliseconds(3))
        driver.deliver(forged)
        driver.advance(by: .milliseconds(1) + .microseconds(10))
        driver.deliver(try #require(outcome.reply))
        let record = try #require(driver.core.result.exchanges.first)
        #expect(record.rejected.map(\.reason.code) == ["nts_bad_authenticator"])
        #expect(record.sample != nil)
    }

    @Test func aNAKEndsTheBurstAndAsksForANewKeyExchange() throws {
        let (association, jar, _) = Self.association()
        var driver = Self.driver(association)
        _ = Self.run(&driver, jar: jar, behaviour: .nak)
        let result = try #require(driver.outcome)
        #expect(driver.sent.count == 1)
        #expect(result.kissCode == NTPPacket.KissCode.ntsNegativeAcknowledgement)
        #expect(association.needsKeyExchange)
    }

    @Test func runningOutOfCookiesEndsTheBurstWithoutSendingAnUnprotectedRequest() throws {
        let (association, jar, _) = Self.association(cookies: 2)
        var driver = Self.driver(association)
        _ = Self.run(&driver, jar: jar, behaviour: .noNewCookies)
        let result = try #require(driver.outcome)
        #expect(driver.sent.count == 2, "only as many requests as cookies")
        #expect(result.samples.count == 2)
        guard case .rejected(let reason) = result.exchanges.last?.outcome else {
            Issue.record("the last record is not the refused request: \(result.exchanges)")
            return
        }
        #expect(reason.code == "nts_no_cookies")
        #expect(association.needsKeyExchange)
    }
}
