import LoopbackServers
import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import Testing
import TimeValues

@testable import NTSClient
import WallClockReference

/// Our NTS client against the loopback fake NTS server (``FakeNTSServer``): a correct server gives
/// authenticated samples; every hostile behaviour ends with its own reason and no sample.
@Suite(
    .enabled(if: TestCertificates.runnable, "the openssl command is not installed"), .serialized,
    .wallClockReference)
struct NTSHostileServerTests {
    /// Two requests, back to back, each waiting at most 300 ms: a discarded reply costs a timeout.
    /// The fake servers' clocks are this machine's wall clock plus the offset, while our stamps are
    /// boot-time readings mapped to the wall clock once per burst. The pairing of the two readings
    /// can be off by a preemption between them (the mapping keeps the tightest of a few tries, but
    /// a loaded 2-core machine can still stall one), so offsets against the wall clock get 1 ms
    /// beyond their bound. Every bound on the boot-time line holds without it.
    static let wallMapping: Duration = .milliseconds(1)

    static let options = QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(300))

    /// A fake NTS server with `behaviour` (on 127.0.0.1, its clock `offset` ahead).
    static func server(
        _ behaviour: FakeNTSServer.Behaviour = .normal, offset: Duration = .milliseconds(1500),
        configure: (inout FakeNTSServer.Configuration) -> Void = { _ in }
    ) throws -> (FakeNTSServer, TestCertificates) {
        let certificates = try TestCertificates.require()
        var configuration = FakeNTSServer.Configuration(
            certificates: certificates, offset: offset, behaviour: behaviour)
        configure(&configuration)
        return (try FakeNTSServer(configuration: configuration), certificates)
    }

    /// One query of `server` by `host`, with fresh sessions unless given.
    static func query(
        _ server: FakeNTSServer, certificates: TestCertificates, host: String = "127.0.0.1",
        sessions: NTSSessions = NTSSessions(), options: QueryOptions = options
    ) -> NTSQueryOutcome {
        let client = SNTPClient()
        let query = NTSQuery(client: client, trust: .caFile(certificates.caFile), sessions: sessions)
        return query.query(
            .nts(host, port: server.kePort), options: options, deadline: client.monotonic.now() + .seconds(5))
    }

    /// The rejection codes of a burst that produced no sample.
    static func rejectionCodes(_ outcome: NTSQueryOutcome) -> [String] {
        guard case .allRejected(let reasons) = outcome.result?.failure else { return [] }
        return reasons.map(\.code)
    }

    /// A reply is never cut short by the receive buffer (issue 18): after a key exchange that gave
    /// only four 500-byte cookies, the first request asks for four more (placeholders) and the
    /// reply carries five cookies, about 2.7 KB, which a 1 KiB buffer truncated and refused as
    /// malformed. Both replies must authenticate, and the association ends up with eight cookies.
    @Test func aReplyWithSeveralLargeCookiesIsReadWhole() throws {
        let (server, certificates) = try Self.server { configuration in
            configuration.cookieCount = 4
            configuration.cookiePadding = 400
        }
        defer { server.stop() }
        let outcome = Self.query(server, certificates: certificates)
        #expect(outcome.failure == nil, "\(String(describing: outcome.failure))")
        let samples = try #require(outcome.result?.samples)
        #expect(samples.count == 2, "\(Self.rejectionCodes(outcome))")
        #expect(outcome.association?.cookieCount == 8)
        // 4 from the key exchange, then 5 (one per request plus four placeholders) and 1.
        #expect(server.statistics.cookiesIssued == 10)
        #expect(server.statistics.authenticatedRequests == 2)
    }

    @Test func aCorrectServerGivesAuthenticatedSamplesWithinTheirBounds() throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let sessions = NTSSessions()
        let first = Self.query(server, certificates: certificates, sessions: sessions)
        #expect(first.failure == nil)
        #expect(first.keyExchanges == 1)
        let samples = try #require(first.result?.samples)
        #expect(samples.count == 2)
        for sample in samples {
            // The truth (+1.5 s) lies inside each sample's interval: θ ± ε, ε ≥ δ/2.
            #expect(
                abs(sample.offset - .milliseconds(1500)) <= sample.errorBound + Self.wallMapping, "\(sample)")
        }
        #expect(first.aead == 15)
        #expect(first.ntpAddress == SocketAddress(numericHost: "127.0.0.1", port: server.ntpPort))
        // Each request spent one cookie and asked for the difference to 8 with placeholders.
        #expect(first.cookiesHeld == 8)
        #expect(server.statistics.authenticatedRequests == 2)
        #expect(server.statistics.keHandshakes == 1)

        // The association is kept: a second query makes no key exchange.
        let second = Self.query(server, certificates: certificates, sessions: sessions)
        #expect(second.keyExchanges == 0)
        #expect(second.result?.samples.count == 2)
        #expect(server.statistics.keHandshakes == 1)
    }

    /// Replies the client must discard, with the code each must leave.
    static let discarded: [(FakeNTSServer.Behaviour, String)] = [
        (.badAuthenticator, "nts_bad_authenticator"),
        (.wrongUniqueIdentifier, "nts_unique_identifier_mismatch"),
        (.missingUniqueIdentifier, "nts_missing_unique_identifier"),
        (.noExtensionFields, "nts_unauthenticated_reply"),
        (.oversizedExtensionField, "nts_malformed_reply"),
        (.truncatedExtensionField, "nts_malformed_reply"),
    ]

    /// Replies the client must discard: each leaves its own code, and no sample. Each case waits
    /// out its requests' 300 ms timeouts against its own server, so the cases run at once; every
    /// message names its behaviour.
    @Test func aTamperedOrStrippedReplyNeverBecomesASample() async throws {
        let runs = try await BlockingCases.run(Self.discarded.map(\.0), lanes: Self.discarded.count) {
            behaviour in
            let (server, certificates) = try Self.server(behaviour)
            defer { server.stop() }
            return (Self.query(server, certificates: certificates), server.statistics.authenticatedRequests)
        }
        #expect(runs.count == Self.discarded.count)
        for ((behaviour, (outcome, authenticated)), (_, code)) in zip(runs, Self.discarded) {
            #expect(outcome.failure == nil, "\(behaviour): \(String(describing: outcome.failure))")
            #expect(outcome.result?.samples.isEmpty == true, "\(behaviour)")
            #expect(Set(Self.rejectionCodes(outcome)) == [code], "\(behaviour)")
            // The server did receive and authenticate our requests: the fault is in its replies.
            #expect(authenticated == 2, "\(behaviour): \(authenticated) authenticated requests")
            let failure = try #require(outcome.result?.failure, "\(behaviour): no failure")
            #expect(SNTPError(failure).rejections == [code], "\(behaviour)")
        }
    }

    @Test func anNTSNAKLeadsToOneNewKeyExchangeAndNoSample() throws {
        let (server, certificates) = try Self.server(.nak)
        defer { server.stop() }
        let outcome = Self.query(server, certificates: certificates)
        #expect(outcome.result?.samples.isEmpty == true)
        #expect(outcome.result?.kissCode == .ntsNegativeAcknowledgement)
        // The NAK made the association unusable; exactly one new key exchange followed.
        #expect(outcome.keyExchanges == 2)
        #expect(server.statistics.keHandshakes == 2)
        #expect(outcome.association?.needsKeyExchange == true)
    }

    @Test func aServerThatStopsSendingCookiesCostsANewKeyExchangeWhenTheyRunOut() throws {
        let (server, certificates) = try Self.server(.noNewCookies)
        defer { server.stop() }
        let sessions = NTSSessions()
        let four = QueryOptions(samples: 4, interval: .zero, timeout: .milliseconds(300))
        let first = Self.query(server, certificates: certificates, sessions: sessions, options: four)
        #expect(first.result?.samples.count == 4 && first.cookiesHeld == 4 && first.keyExchanges == 1)
        let second = Self.query(server, certificates: certificates, sessions: sessions, options: four)
        #expect(second.result?.samples.count == 4 && second.cookiesHeld == 0 && second.keyExchanges == 0)
        let third = Self.query(server, certificates: certificates, sessions: sessions, options: four)
        #expect(third.result?.samples.count == 4 && third.keyExchanges == 1)
        #expect(server.statistics.keHandshakes == 2)
    }

    /// Key exchanges the client must refuse: each with its own code, and no NTP request sent.
    @Test(arguments: [
        (FakeNTSServer.Behaviour.keNoCookies, "nts_ke_no_cookies", ""),
        (.keTLS12Only, "nts_ke_tls_protocol_version", ""),
        (.keNoALPN, "nts_ke_no_alpn", "ALPN"),
        (.keCriticalUnknownRecord, "nts_ke_unknown_critical_record", ""),
        (.keErrorRecord(code: 2), "nts_ke_server_error", ""),
        (.keWarningRecord(code: 5), "nts_ke_warning", "Warning 5"),
        (.keOversizedResponse, "nts_ke_response_too_large", ""),
        (.keTruncatedRecords, "nts_ke_truncated", ""),
    ])
    func aRefusedKeyExchangeSendsNoNTPRequest(behaviour: FakeNTSServer.Behaviour, code: String, words: String)
        throws
    {
        let (server, certificates) = try Self.server(behaviour)
        defer { server.stop() }
        let outcome = Self.query(server, certificates: certificates)
        #expect(outcome.failure?.code.rawValue == code, "\(String(describing: outcome.failure))")
        if !words.isEmpty { #expect(outcome.failure?.reason.contains(words) == true) }
        #expect(outcome.result == nil)
        #expect(server.statistics.authenticatedRequests == 0 && server.statistics.plainRequests == 0)
    }

    /// Certificates the client must refuse: the handshake fails with the verification reason.
    @Test(arguments: ["wrong name", "expired", "self-signed"])
    func anUntrustedCertificateIsRefused(kind: String) throws {
        let certificates = try TestCertificates.require()
        let behaviour: FakeNTSServer.Behaviour
        let words: String
        switch kind {
        case "wrong name":
            behaviour = .wrongNameCertificate(certificates)
            words = "hostname mismatch"
        case "expired":
            behaviour = .expiredCertificate(certificates)
            words = "expired"
        default:
            behaviour = .selfSignedCertificate(certificates)
            words = "self-signed"
        }
        let (server, _) = try Self.server(behaviour)
        defer { server.stop() }
        let outcome = Self.query(server, certificates: certificates, host: "localhost")
        // An expired certificate is refused for its dates (which may be the local clock's fault, so
        // the server is not backed off), the others for what they are.
        let expected =
            kind == "expired"
            ? "nts_ke_tls_certificate_not_valid_at_checked_time"
            : "nts_ke_tls_certificate_verification_failed"
        #expect(outcome.failure?.code.rawValue == expected)
        #expect(outcome.failure?.reason.contains(words) == true, "\(String(describing: outcome.failure))")
        #expect(outcome.result == nil)
        #expect(server.statistics.authenticatedRequests == 0)
    }

    @Test func aFailedKeyExchangeBacksOffInsteadOfRetryingAtOnce() throws {
        let (server, certificates) = try Self.server(.keNoALPN)
        defer { server.stop() }
        let sessions = NTSSessions()
        #expect(
            Self.query(server, certificates: certificates, sessions: sessions).failure?.code.rawValue
                == "nts_ke_no_alpn")
        // The server counts the handshake on its own thread, possibly after the client gave up.
        #expect(server.waitUntil(timeout: .seconds(2)) { $0.keHandshakes == 1 })
        let again = Self.query(server, certificates: certificates, sessions: sessions)
        #expect(again.failure?.code.rawValue == "nts_ke_backoff")
        #expect(!server.waitUntil(timeout: .milliseconds(200)) { $0.keHandshakes > 1 })
    }

    @Test func theNTPServerNamedByTheKeyExchangeIsTheOneQueried() throws {
        let (server, certificates) = try Self.server(.keServerNegotiation(server: "127.0.0.1", port: nil))
        defer { server.stop() }
        let outcome = Self.query(server, certificates: certificates, host: "localhost")
        #expect(outcome.ntpAddress == SocketAddress(numericHost: "127.0.0.1", port: server.ntpPort))
        #expect(outcome.result?.samples.count == 2)
    }

    /// RFC 8915 cannot stop delay: replies held back 40 ms in one direction shift the offset by
    /// half of it, and each sample's bound (ε ≥ δ/2) grows as much, so the truth stays inside.
    @Test func aOneWayDelayOf40msShiftsTheOffsetByHalfAndTheTruthStaysInsideTheBound() throws {
        let (server, certificates) = try Self.server(offset: .milliseconds(1500)) {
            $0.replyDelay = .milliseconds(40)
        }
        defer { server.stop() }
        let outcome = Self.query(
            server, certificates: certificates,
            options: QueryOptions(samples: 4, interval: .zero, timeout: .seconds(1)))
        let samples = try #require(outcome.result?.samples)
        #expect(samples.count == 4)
        for sample in samples {
            #expect(sample.delay >= .milliseconds(40))
            // θ = truth − (return leg − outbound leg)/2 = 1.5 s − 20 ms, give or take the loopback's
            // own share of the round trip beyond the 40 ms (split between the legs in ways unknown)
            // and the wall-clock pairing.
            let noise = (sample.delay - .milliseconds(40)) / 2 + Self.wallMapping
            #expect(abs(sample.offset - .milliseconds(1480)) <= noise, "\(sample)")
            #expect(
                abs(sample.offset - .milliseconds(1500)) <= sample.errorBound + Self.wallMapping, "\(sample)")
        }
        // The burst's intersection holds the truth as well.
        guard case .success(let estimate) = outcome.result?.estimate else {
            Issue.record("no burst estimate")
            return
        }
        #expect(estimate.offset.contains(.milliseconds(1500)))
    }
}
