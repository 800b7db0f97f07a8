import Foundation
import HTTPTime
import NTSClient
import NetClockPlatform
import Roughtime
import SNTP
import Testing
import TimeValues

@testable import NetworkClock

/// The decisions of a sync round (``SyncRound``) on a manual clock, against a simulated network
/// (``RoundDriver``): spacing, timeouts, Kiss-o'-Death, the deadlines, enough sources, Roughtime in
/// parallel, the certificate time of a cold start, the fallback's start, and cancellation. Every
/// instant is exact; no socket, no thread, no sleep.
@Suite struct SyncRoundTests {
    static let a = ServerName(host: "a.example")
    static let b = ServerName(host: "b.example")

    /// A driver for `servers`, each name resolving to one address after 2 ms.
    static func driver(
        _ servers: [ServerName],
        query: QueryOptions = QueryOptions(samples: 1, interval: .seconds(2), timeout: .seconds(1)),
        httpURLs: [URL] = [], deadline: Duration? = nil, minimumSources: Int? = nil,
        mode: NetworkClock.NTSMode = .require, roughtime: Bool = false,
        certificateTime: SyncRound.CertificateTimeSource = .known(nil, .wallClock),
        registry: SourceRegistry = SourceRegistry()
    ) -> (RoundDriver, SyncDecision) {
        let (round, decision) = RoundDriver.round(
            servers: servers, query: query, httpURLs: httpURLs, deadline: deadline,
            minimumSources: minimumSources,
            mode: mode, roughtime: roughtime, certificateTime: certificateTime, registry: registry)
        var driver = RoundDriver(round)
        for (index, server) in servers.enumerated() {
            let address = RoundDriver.address(UInt8(index + 1))
            driver.names[server] = ([address], .milliseconds(2))
            driver.servers[address] = RoundDriver.Server()
        }
        return (driver, decision)
    }

    @Test func burstsAreSpacedAndEachRequestWaitsItsTimeout() throws {
        let query = QueryOptions(samples: 3, interval: .seconds(2), timeout: .seconds(1))
        var (driver, decision) = Self.driver([Self.a, Self.b], query: query)
        driver.servers[RoundDriver.address(2)]?.behaviour = .silent
        let driverEvidence = driver.run()
        let evidence = try #require(driverEvidence)
        // Resolved after 2 ms; the requests 2 s apart; the silent server's third waits 1 s.
        #expect(
            driver.sends(to: RoundDriver.address(1)) == [
                .milliseconds(2), .milliseconds(2_002), .milliseconds(4_002),
            ])
        #expect(
            driver.sends(to: RoundDriver.address(2)) == [
                .milliseconds(2), .milliseconds(2_002), .milliseconds(4_002),
            ])
        #expect(evidence.end - evidence.start == .milliseconds(5_002))
        let report = try decision.decide(evidence)
        #expect(report.servers.map(\.status) == [.selected, .timeout])
        #expect(abs(report.offset) <= report.errorBound)
    }

    /// Etiquette across rounds: the second round's first request to an address waits for the
    /// spacing since the first round's last one.
    @Test func aBurstStartsNoEarlierThanTheSpacingSinceThePreviousOne() throws {
        let registry = SourceRegistry()
        let query = QueryOptions(samples: 2, interval: .seconds(2), timeout: .seconds(1))
        var (first, _) = Self.driver([Self.a], query: query, registry: registry)
        let firstEvidence = first.run()
        let ended = try #require(firstEvidence).end - RoundDriver.start
        #expect(first.sends(to: RoundDriver.address(1)) == [.milliseconds(2), .milliseconds(2_002)])
        // The next round starts on the same timeline's start: its first request waits until 2 s
        // after the first round's burst ended; its second would start past the round's NTP
        // deadline (2 × 1 s + 2 s + 1 s), so it is not sent.
        var (second, _) = Self.driver([Self.a], query: query, registry: registry)
        second.run()
        #expect(second.sends(to: RoundDriver.address(1)) == [ended + .seconds(2)])
    }

    @Test func aRateKissBacksTheAddressOffAndDenyDropsIt() throws {
        let registry = SourceRegistry()
        var (rate, decision) = Self.driver([Self.a, Self.b], registry: registry)
        rate.servers[RoundDriver.address(1)]?.behaviour = .kiss("RATE")
        rate.servers[RoundDriver.address(2)]?.behaviour = .kiss("DENY")
        let rateEvidence = rate.run()
        let evidence = try #require(rateEvidence)
        #expect(evidence.ntp.map(\.report.status) == [.kissOfDeath, .kissOfDeath])
        #expect(throws: SyncError.self) { try decision.decide(evidence) }
        // The next round, a second later: RATE silences a for 64 s, DENY drops b for good.
        let (round, _) = RoundDriver.round(servers: [Self.a, Self.b], registry: registry)
        var next = RoundDriver(round)
        next.names = rate.names
        next.servers = rate.servers
        let nextEvidence = next.run()
        let later = try #require(nextEvidence)
        #expect(next.log.allSatisfy { if case .send = $0.action { false } else { true } })
        #expect(later.ntp.map(\.report.status) == [.skipped, .skipped])
        #expect(later.ntp[0].report.reason?.hasPrefix("backing off for") == true)
        #expect(later.ntp[1].report.reason == "dropped after Kiss-o'-Death DENY")
    }

    /// The deadlines: a name not resolved by half the NTP deadline fails; no request starts at or
    /// after the NTP deadline; a request in flight then gets 100 ms more, and the round is over.
    @Test func namesAndRequestsAreCutOffAtTheirDeadlines() throws {
        let query = QueryOptions(samples: 4, interval: .seconds(2), timeout: .seconds(3))
        // With HTTP(S) configured, NTP gets half the round, 4 s: names have 2 s.
        var (driver, _) = Self.driver(
            [Self.a, Self.b], query: query, httpURLs: [URL(string: "http://h.example/")!],
            deadline: .seconds(8))
        driver.names[Self.b] = ([RoundDriver.address(2)], .seconds(3))
        driver.servers[RoundDriver.address(1)]?.behaviour = .silent
        driver.http = ([.failure(HTTPTimeError(.timeout, "simulated"))], .milliseconds(10))
        let ran = driver.run()
        let evidence = try #require(ran)
        #expect(evidence.ntp[1].report.status == .error)
        #expect(
            evidence.ntp[1].report.reason
                == "cannot resolve b.example: name resolution took longer than 2.000000s",
            "\(evidence.ntp[1].report)")
        // Each request waits 3 s, the next follows at once (the 2 s spacing has passed); the one
        // after 3.002 s would start past the deadline, and the one in flight is given up at it.
        #expect(driver.sends(to: RoundDriver.address(1)) == [.milliseconds(2), .milliseconds(3_002)])
        // NTP gave nothing: the fallback starts at the deadline and ends 10 ms later.
        #expect(driver.first { if case .measureHTTP = $0 { true } else { false } } == .seconds(4))
        #expect(evidence.end - evidence.start == .milliseconds(4_010))
    }

    @Test func enoughSourcesEndTheRoundEarly() throws {
        var (driver, decision) = Self.driver([Self.a, Self.b], minimumSources: 1)
        driver.servers[RoundDriver.address(2)]?.oneWay = .milliseconds(400)
        let driverEvidence = driver.run()
        let evidence = try #require(driverEvidence)
        // Resolved at 2 ms, answered 10 ms later (and the server's 20 µs).
        #expect(evidence.end - evidence.start == .milliseconds(12) + .microseconds(20))
        #expect(evidence.ntp[1].report.status == .timeout)
        #expect(evidence.ntp[1].report.reason == "no sample before enough other sources answered")
        #expect(try decision.decide(evidence).servers[0].status == .selected)

        // A name resolved after enough sources answered is not queried at all.
        let c = ServerName(host: "c.example")
        var (late, _) = Self.driver([Self.a, Self.b, c], minimumSources: 2)
        late.names[c] = ([RoundDriver.address(3)], .milliseconds(50))
        let lateEvidence = late.run()
        let enough = try #require(lateEvidence)
        #expect(enough.end - enough.start == .milliseconds(50))
        #expect(late.sends(to: RoundDriver.address(3)).isEmpty)
        #expect(enough.ntp[2].report.reason == "no sample before enough other sources answered")
    }

    /// Roughtime runs beside NTP and is awaited until the round's deadline.
    @Test func roughtimeRunsInParallelAndIsAwaitedUntilTheDeadline() throws {
        var (driver, _) = Self.driver([Self.a], deadline: .seconds(5), roughtime: true)
        driver.roughtime = (Self.roughtime(), .milliseconds(300))
        let driverEvidence = driver.run()
        let evidence = try #require(driverEvidence)
        #expect(driver.first { if case .queryRoughtime = $0 { true } else { false } } == .zero)
        #expect(evidence.end - evidence.start == .milliseconds(300))
        #expect(evidence.roughtimeServers.count == 2)

        var (silent, decision) = Self.driver([Self.a], deadline: .seconds(5), roughtime: true)
        let silentEvidence = silent.run()
        let alone = try #require(silentEvidence)
        #expect(alone.end - alone.start == .seconds(5))
        #expect(alone.roughtime == nil)
        #expect(try decision.decide(alone).source == .ntp)
    }

    /// On a cold start that checks certificates, Roughtime's agreement is the certificate time: the
    /// NTS key exchange waits for it, plain NTP does not.
    @Test func aColdStartsKeyExchangeWaitsForRoughtimeButPlainNTPDoesNot() throws {
        let nts = ServerName.nts("n.example")
        var (driver, _) = Self.driver(
            [Self.a, nts], deadline: .seconds(5), mode: .mix, roughtime: true,
            certificateTime: .roughtime(floor: nil))
        driver.names.removeValue(forKey: nts)
        driver.roughtime = (Self.roughtime(), .milliseconds(300))
        let failure = NTSFailure(.keRefused, "simulated")
        driver.nts[nts] = (
            SyncRound.NTSPreparation(association: nil, keyExchanged: true, failure: failure), .milliseconds(5)
        )
        let driverEvidence = driver.run()
        let evidence = try #require(driverEvidence)
        #expect(driver.sends(to: RoundDriver.address(1)) == [.milliseconds(2)])
        let exchange = driver.first { if case .prepareNTS = $0 { true } else { false } }
        #expect(exchange == .milliseconds(300))
        guard
            case .prepareNTS(_, _, let time, _)? = driver.log.first(where: {
                if case .prepareNTS = $0.action { true } else { false }
            })?.action
        else {
            Issue.record("no key exchange")
            return
        }
        #expect(time == .at(secondsSince1970: 1_796_040_001))
        #expect(evidence.certificateCheck == .roughtime)
        #expect(evidence.ntp[1].report.status == .error)
    }

    /// The fallback starts at once when no NTP source answered (Roughtime still awaited), not at
    /// all when NTP gave time or its sources disagree, and is ruled out unmeasured under `require`
    /// with authenticated sources configured.
    @Test func theFallbackStartsOnlyWhenTheSelectionNeedsIt() throws {
        let url = URL(string: "http://h.example/")!
        let measured = Self.http(url, offset: .zero)
        var (silent, decision) = Self.driver(
            [Self.a], httpURLs: [url], deadline: .seconds(10), mode: .mix, roughtime: true)
        silent.servers[RoundDriver.address(1)]?.behaviour = .silent
        silent.roughtime = (Self.roughtime(), .seconds(4))
        silent.http = ([.success(measured)], .milliseconds(10))
        let silentEvidence = silent.run()
        let fallback = try #require(silentEvidence)
        // The NTP deadline is half the round (5 s): the request times out at 1.002 s, the burst
        // ends, and HTTP starts at once, before Roughtime's answer at 4 s.
        #expect(silent.first { if case .measureHTTP = $0 { true } else { false } } == .milliseconds(1_002))
        #expect(fallback.http?.first?.candidate != nil)
        #expect(try decision.decide(fallback).source == .http)

        var (answered, _) = Self.driver([Self.a], httpURLs: [url], deadline: .seconds(10))
        answered.http = ([.success(measured)], .milliseconds(10))
        let answeredEvidence = answered.run()
        let ntp = try #require(answeredEvidence)
        #expect(answered.first { if case .measureHTTP = $0 { true } else { false } } == nil)
        #expect(ntp.http == nil)

        var (split, splitDecision) = Self.driver([Self.a, Self.b], httpURLs: [url], deadline: .seconds(10))
        split.servers[RoundDriver.address(2)]?.offset = .seconds(30)
        split.http = ([.success(measured)], .milliseconds(10))
        let splitEvidence = split.run()
        let disagreeing = try #require(splitEvidence)
        #expect(split.first { if case .measureHTTP = $0 { true } else { false } } == nil)
        #expect(throws: SyncError.self) { try splitDecision.decide(disagreeing) }

        var (required, _) = Self.driver([Self.a], httpURLs: [url], deadline: .seconds(10), roughtime: true)
        required.servers[RoundDriver.address(1)]?.behaviour = .silent
        let requiredEvidence = required.run()
        let unused = try #require(requiredEvidence)
        #expect(required.first { if case .measureHTTP = $0 { true } else { false } } == nil)
        #expect(unused.http?.first?.report.status == .unauthenticated)
    }

    /// A cold start against three servers with the default spacing (4 requests 2 s apart): a
    /// provisional decision gives time as soon as the sources that decide are a majority of those
    /// asked (the replies still awaited could outvote fewer), one round trip after the start; each
    /// later reply adds to it, and the round itself ends 6 s later.
    @Test func provisionalEvidenceGivesTimeWithinARoundTripOfTheFirstReplies() throws {
        let c = ServerName(host: "c.example")
        var (driver, decision) = Self.driver([Self.a, Self.b, c], query: QueryOptions())
        driver.servers[RoundDriver.address(2)]?.oneWay = .milliseconds(8)
        driver.servers[RoundDriver.address(3)]?.oneWay = .milliseconds(40)
        let ran = driver.run()
        let evidence = try #require(ran)
        #expect(evidence.end - evidence.start == .milliseconds(6_082) + .microseconds(20))
        // a's reply (12 ms) alone is one of three: no provisional time yet.
        let first = try #require(driver.provisional.first)
        #expect(first.at - RoundDriver.start == .milliseconds(12) + .microseconds(20))
        #expect(decision.decideProvisionally(first.evidence) == nil)
        // b's at 18 ms makes two of three: a time, bounded by the round trips.
        let decided = driver.provisional.compactMap { entry in
            decision.decideProvisionally(entry.evidence).map { (entry.at - RoundDriver.start, $0) }
        }
        let earliest = try #require(decided.first)
        #expect(earliest.0 == .milliseconds(18) + .microseconds(20), "\(decided.map(\.0))")
        #expect(earliest.1.errorBound < .milliseconds(10))
        // Every reply after it gives one, each holding the truth.
        #expect(decided.count == driver.provisional.count - 1)
        #expect(decided.allSatisfy { abs($0.1.offset) <= $0.1.errorBound })
        // The round's own result: as tight, but for the drift allowed over the 6 s it took.
        let final = try decision.decide(evidence)
        #expect(abs(final.offset) <= final.errorBound)
        #expect(final.errorBound <= earliest.1.errorBound + Duration.milliseconds(6_100).drift(atPPM: 15) * 2)
    }

    /// A clock with a need (100 ms) against three servers with the default burst (4 requests 2 s
    /// apart): once a provisional decision is within half the need, two of three first replies in
    /// at 18 ms, the round ends. Three requests instead of twelve; the decision is the round's
    /// own, not cancelled, and holds the truth.
    @Test func aProvisionalDecisionWithinTheNeedEndsTheRoundAfterTheFirstReplies() throws {
        let c = ServerName(host: "c.example")
        var (driver, decision) = Self.driver([Self.a, Self.b, c], query: QueryOptions())
        driver.servers[RoundDriver.address(2)]?.oneWay = .milliseconds(8)
        driver.servers[RoundDriver.address(3)]?.oneWay = .milliseconds(40)
        driver.satisfiedBy = { evidence in
            decision.decideProvisionally(evidence).map { $0.errorBound <= .milliseconds(50) } ?? false
        }
        let ran = driver.run()
        let evidence = try #require(ran)
        #expect(!evidence.cancelled)
        #expect(evidence.end - evidence.start == .milliseconds(18) + .microseconds(20))
        let sent = (1...3).map { driver.sends(to: RoundDriver.address($0)).count }
        #expect(sent == [1, 1, 1], "\(sent)")
        let final = try decision.decide(evidence)
        #expect(abs(final.offset) <= final.errorBound)
        #expect(final.errorBound <= .milliseconds(50))
        // c's request went out; its reply, still on its way, is not waited for.
        let third = try #require(final.servers.first { $0.name == c.description })
        #expect(third.reason == "no sample before the need was met", "\(third)")
    }

    /// A sync with a need against one name with four addresses: three are asked (two of them
    /// agreeing outvote one falseticker, as three of four would), the fourth waits in reserve, and
    /// once two first replies meet the need the round ends: three requests, not four.
    @Test func aSyncWithANeedAsksThreeOfFourAddressesAndKeepsTheFourthInReserve() throws {
        var (driver, decision) = Self.poolDriver()
        driver.servers[RoundDriver.address(2)]?.oneWay = .milliseconds(8)
        driver.servers[RoundDriver.address(3)]?.oneWay = .milliseconds(40)
        let ran = driver.run()
        let evidence = try #require(ran)
        let sent = (1...4).map { driver.sends(to: RoundDriver.address($0)).count }
        #expect(sent == [1, 1, 1, 0], "\(sent)")
        #expect(evidence.end - evidence.start == .milliseconds(18) + .microseconds(20))
        let final = try decision.decide(evidence)
        #expect(abs(final.offset) <= final.errorBound)
        #expect(final.servers[3].status == .skipped)
        #expect(
            final.servers[3].reason == "not asked: the addresses asked met the need", "\(final.servers[3])")
        // Without a need all four are asked, each the whole burst.
        var (plain, _) = Self.poolDriver(reserves: false)
        _ = plain.run()
        #expect((1...4).map { plain.sends(to: RoundDriver.address($0)).count } == [4, 4, 4, 4])
    }

    /// The reserve is asked as soon as those asked can no longer form a majority (two of three
    /// refuse at once), and a request timeout after the start when they are slow (two silent).
    @Test func theReserveIsAskedWhenThoseAskedCannotDecide() throws {
        var (refusing, refusingDecision) = Self.poolDriver()
        refusing.servers[RoundDriver.address(1)]?.behaviour = .refused
        refusing.servers[RoundDriver.address(2)]?.behaviour = .kiss("DENY")
        let refusingRan = refusing.run()
        let refused = try #require(refusingRan)
        // Refused 10 ms after the requests went out (5 ms each way), the fourth asked then; two
        // of four are no majority for a provisional answer, so its whole burst goes out, and it
        // takes part in the round's decision.
        #expect(refusing.sends(to: RoundDriver.address(4)).first == .milliseconds(12) + .microseconds(20))
        let report = try refusingDecision.decide(refused)
        #expect(report.servers[3].tookPart, "\(report.servers)")
        #expect(abs(report.offset) <= report.errorBound)

        var (slow, _) = Self.poolDriver()
        slow.servers[RoundDriver.address(1)]?.behaviour = .silent
        slow.servers[RoundDriver.address(2)]?.behaviour = .silent
        _ = slow.run()
        // The query timeout (1 s) after the round's start.
        #expect(slow.sends(to: RoundDriver.address(4)).first == .seconds(1))
    }

    /// `2f + 1` of `2f + 1` or `2f + 2` addresses; all of one or two.
    @Test func theAddressesAskedFirstAreTheLargestOddCount() {
        #expect((0...8).map(SyncRound.addressesAskedFirst(of:)) == [0, 1, 2, 3, 3, 5, 5, 7, 7])
    }

    /// One name resolving to four addresses after 2 ms, the servers' one-way delay 5 ms, a need
    /// of 100 ms (satisfied within 50 ms).
    static func poolDriver(reserves: Bool = true) -> (RoundDriver, SyncDecision) {
        let pool = ServerName(host: "pool.example")
        let (round, decision) = RoundDriver.round(
            servers: [pool], query: QueryOptions(samples: 4, interval: .seconds(2), timeout: .seconds(1)),
            reservesAddresses: reserves)
        var driver = RoundDriver(round)
        let addresses = (1...4).map { RoundDriver.address(UInt8($0)) }
        driver.names[pool] = (addresses, .milliseconds(2))
        for address in addresses { driver.servers[address] = RoundDriver.Server() }
        if reserves {
            driver.satisfiedBy = { evidence in
                decision.decideProvisionally(evidence).map { $0.errorBound <= .milliseconds(50) } ?? false
            }
        }
        return (driver, decision)
    }

    @Test func cancellingEndsTheRoundAtOnceWithWhatItHas() throws {
        let query = QueryOptions(samples: 4, interval: .seconds(2), timeout: .seconds(1))
        var (driver, decision) = Self.driver([Self.a], query: query)
        let driverEvidence = driver.run(interrupt: (.seconds(3), .cancel))
        let evidence = try #require(driverEvidence)
        #expect(evidence.cancelled)
        #expect(evidence.end - evidence.start == .seconds(3))
        #expect(driver.sends(to: RoundDriver.address(1)).count == 2)
        #expect {
            try decision.decide(evidence)
        } throws: { ($0 as? SyncError)?.code == .cancelled }
    }

    // MARK: Evidence

    /// Two Roughtime servers agreeing on the truth + 1 s ± 2 s.
    static func roughtime() -> RoughtimeQueryResult {
        let interval = TrueTimeInterval(
            earliest: RoundDriver.wall + .seconds(-1), latest: RoundDriver.wall + .seconds(3),
            instant: RoundDriver.start)
        let reports = ["r1", "r2"].map { name in
            var report = RoughtimeServerReport(name: name, status: .agreed)
            report.interval = interval
            return report
        }
        let agreement = Result { () throws(RoughtimeError) in
            try RoughtimeAgreement.select(
                [0: interval, 1: interval], wall: RoundDriver.wall, reference: RoundDriver.start,
                minimumAgreeing: 1)
        }
        return RoughtimeQueryResult(servers: reports, agreement: agreement, chain: RoughtimeChain())
    }

    /// An HTTP measurement of `url` at `offset` ± 10 ms.
    static func http(_ url: URL, offset: Duration) -> HTTPTimeMeasurement {
        HTTPTimeMeasurement(
            url: url, kind: .timestampHeader("X-Time"),
            interval: TrueTimeInterval(
                time: RoundDriver.wall + offset, bound: .milliseconds(10), instant: RoundDriver.start),
            localTime: RoundDriver.wall, roundTripDelay: .milliseconds(4), requests: [])
    }
}
