import Foundation
import NetClockPlatform
import Roughtime
import SNTP
import Testing
import TimeValues

@testable import NetworkClock

/// Each Roughtime server as a candidate of the one selection (``SyncDecision``), on fixed values:
/// which time wins under each NTS mode, when authenticated kinds of source disagree, a lying
/// Roughtime server named by the same vote as the NTP sources, what the floor does to the signed
/// time, and what a split Roughtime query leaves to the others.
@Suite struct SignedTimeSelectionTests {
    static let instant = MonotonicInstant(sinceOrigin: .seconds(500))
    static let wall = UnixTime(sinceEpoch: .seconds(1_796_040_000))
    /// The honest signed interval: the true time is within 2 s of the wall clock's + 1 s.
    static let signed = TrueTimeInterval(
        earliest: wall + .seconds(-1), latest: wall + .seconds(3), instant: instant)
    /// A liar's: an hour ahead.
    static let lie = TrueTimeInterval(
        earliest: wall + .seconds(3_599), latest: wall + .seconds(3_603), instant: instant)
    /// The round's wall-clock mapping: the wall clock read ``wall`` at ``instant``.
    static let mapping = TimeMapping(wall: wall, monotonic: instant)

    /// Roughtime servers `a`, `b`, … each with a validly signed `interval`.
    static func roughtime(_ intervals: [TrueTimeInterval]) -> RoughtimeQueryResult {
        let names = intervals.indices.map { String(UnicodeScalar(UInt8(97 + $0))) }
        let reports = zip(names, intervals).map { name, interval in
            var report = RoughtimeServerReport(name: name, status: .unresolved)
            report.interval = interval
            report.midpoint = interval.midpoint
            report.radius = interval.radius
            report.roundTrip = .milliseconds(30)
            return report
        }
        let agreement = Result { () throws(RoughtimeError) in
            try RoughtimeAgreement.select(
                Dictionary(uniqueKeysWithValues: intervals.enumerated().map { ($0, $1) }), wall: wall,
                reference: instant, minimumAgreeing: 1)
        }
        return RoughtimeQueryResult(servers: reports, agreement: agreement, chain: RoughtimeChain())
    }

    /// An NTP (or NTS) server's consistent burst at `offset` ± 5 ms from the wall clock.
    static func ntp(_ name: String, offset: Duration, authenticated: Bool) -> RoundEvidence.Source {
        let server = authenticated ? ServerName.nts(name) : ServerName(host: name)
        let report = SyncReport.Server(server: server, address: nil, status: .survivor)
        let candidate = Candidate(
            index: 0, name: server.description, kind: authenticated ? .nts : .ntp,
            interval: TrueTimeInterval(time: wall + offset, bound: .milliseconds(5), instant: instant),
            delay: .milliseconds(2), isAuthenticated: authenticated, certificates: [])
        return RoundEvidence.Source(report: report, candidate: candidate)
    }

    /// The decision over the NTP sources `ntp` and the Roughtime servers of `roughtime`.
    static func decide(
        _ ntp: [RoundEvidence.Source], roughtime: RoughtimeQueryResult?, mode: NetworkClock.NTSMode,
        floor: UnixTime? = nil
    ) throws(SyncError) -> SyncReport {
        var policy = SyncPolicy(servers: ntp.map { ServerName(host: $0.report.name) })
        policy.ntsMode = mode
        var evidence = RoundEvidence(start: instant, mapping: mapping)
        evidence.ntp = ntp
        evidence.roughtime = roughtime
        evidence.roughtimeServers = (roughtime?.servers ?? []).map {
            RoundEvidence.Source(report: SyncReport.Server($0), candidate: Candidate(roughtime: $0))
        }
        return try SyncDecision(policy: policy, httpURLs: [], floor: floor).decide(evidence)
    }

    /// Each Roughtime server's status in `report`, by name.
    static func statuses(_ servers: [SyncReport.Server]) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: servers.filter { $0.kind == .roughtime }.map {
                ($0.name, $0.status.rawValue)
            })
    }

    @Test func anNTSResultInsideTheSignedIntervalStands() throws {
        let nts = Self.ntp("nts0.example", offset: .milliseconds(1_250), authenticated: true)
        let report = try Self.decide(
            [nts], roughtime: Self.roughtime([Self.signed, Self.signed]), mode: .require)
        #expect(report.source == .ntp && report.servers[0].status == .selected)
        #expect(
            abs(report.offset - .milliseconds(1_250)) <= .nanoseconds(1)
                && report.errorBound <= .milliseconds(5))
        #expect(Self.statuses(report.servers) == ["a": "agreed", "b": "agreed"])
        #expect(report.roughtime?.agreedOffsets == .seconds(-1)...(.seconds(3)))
        #expect(report.isAuthenticated)
    }

    /// A Roughtime server that lies among honest ones is a falseticker of the same vote as the NTP
    /// and NTS sources, not of a vote of its own: the NTS server and the honest servers outvote it.
    @Test func aLyingRoughtimeServerAmongHonestOnesIsAFalsetickerOfTheOneVote() throws {
        let nts = Self.ntp("nts0.example", offset: .milliseconds(1_250), authenticated: true)
        let query = Self.roughtime([Self.signed, Self.lie, Self.signed])
        let report = try Self.decide([nts], roughtime: query, mode: .require)
        #expect(report.source == .ntp)
        #expect(Self.statuses(report.servers) == ["a": "agreed", "b": "falseticker", "c": "agreed"])
        #expect(report.roughtime?.liars == ["b"])
        let liar = report.servers.first { $0.name == "b" }
        #expect(liar?.reason == "outside the interval the majority of sources agree on")
        // Beside plain NTP under `mix` the vote is the same one: the liar is named the same way.
        let plain = [
            Self.ntp("ntp0.example", offset: .milliseconds(800), authenticated: false),
            Self.ntp("ntp1.example", offset: .milliseconds(810), authenticated: false),
        ]
        let mixed = try Self.decide(plain, roughtime: query, mode: .mix)
        #expect(Self.statuses(mixed.servers) == ["a": "agreed", "b": "falseticker", "c": "agreed"])
        #expect(mixed.servers[0].status == .selected || mixed.servers[1].status == .selected)
    }

    @Test func anNTSResultThatContradictsRoughtimeGivesNoTime() throws {
        let nts = Self.ntp("nts0.example", offset: .seconds(30), authenticated: true)
        #expect {
            try Self.decide([nts], roughtime: Self.roughtime([Self.signed, Self.signed]), mode: .require)
        } throws: { error in
            (error as? SyncError)?.code == .authenticatedSourcesDisagree
        }
    }

    @Test func signedTimeOutvotedWholeByNTSServersIsAConflictNotAFalseticker() throws {
        let agreeing = (0..<3).map { Self.ntp("nts\($0).example", offset: .seconds(30), authenticated: true) }
        #expect {
            try Self.decide(agreeing, roughtime: Self.roughtime([Self.signed, Self.signed]), mode: .require)
        } throws: { error in
            guard let error = error as? SyncError, error.code == .authenticatedSourcesDisagree else {
                return false
            }
            return error.reason.contains("signed Roughtime time") && error.reason.contains("NTS time")
        }
    }

    @Test(arguments: [NetworkClock.NTSMode.require, .prefer])
    func underRequireAndPreferTheSignedTimeDecidesOverPlainNTP(mode: NetworkClock.NTSMode) throws {
        let ntp = Self.ntp("ntp0.example", offset: .milliseconds(800), authenticated: false)
        let report = try Self.decide(
            [ntp], roughtime: Self.roughtime([Self.signed, Self.signed]), mode: mode)
        #expect(report.source == .roughtime)
        #expect(report.servers[0].status == .unauthenticated)
        #expect(report.servers[0].reason?.contains("Roughtime") == true)
        #expect(abs(report.offset - .seconds(1)) <= .nanoseconds(1) && report.errorBound >= .seconds(2))
        #expect(report.server == "roughtime (2 of 2: a, b)")
    }

    @Test func underMixAnAgreeingPlainResultKeepsItsPrecision() throws {
        let ntp = Self.ntp("ntp0.example", offset: .milliseconds(800), authenticated: false)
        let report = try Self.decide(
            [ntp], roughtime: Self.roughtime([Self.signed, Self.signed]), mode: .mix)
        #expect(report.servers[0].status == .selected)
        #expect(report.errorBound == .milliseconds(5))
        #expect(!report.isAuthenticated)
    }

    @Test(arguments: [NetworkClock.NTSMode.require, .prefer, .mix])
    func plainResultsOutsideTheSignedIntervalAreFalsetickersHoweverMany(mode: NetworkClock.NTSMode) throws {
        let plain = (0..<3).map {
            Self.ntp("ntp\($0).example", offset: .seconds(-3_600), authenticated: false)
        }
        let report = try Self.decide(
            plain, roughtime: Self.roughtime([Self.signed, Self.signed]), mode: mode)
        #expect(report.source == .roughtime)
        #expect(report.servers.prefix(3).allSatisfy { $0.status == .falseticker }, "\(report.servers)")
    }

    @Test func whenTheOthersGiveNoTimeTheSignedTimeDoes() throws {
        let report = try Self.decide(
            [], roughtime: Self.roughtime([Self.signed, Self.signed]), mode: .require)
        #expect(report.source == .roughtime)
        #expect(report.server == "roughtime (2 of 2: a, b)")
        // The anchor it gives is the signed interval, never tighter.
        #expect(report.anchor.errorBound >= .seconds(2))
        #expect(abs(report.anchor.trueTime - (Self.wall + .seconds(1))) <= .nanoseconds(1))
    }

    @Test func aSignedTimeWhollyBeforeTheFloorIsRuledOutAndTheOthersDecide() throws {
        let ntp = Self.ntp("ntp0.example", offset: .seconds(3_600), authenticated: false)
        let report = try Self.decide(
            [ntp], roughtime: Self.roughtime([Self.signed, Self.signed]), mode: .prefer,
            floor: Self.wall + .seconds(60))
        #expect(report.servers[0].status == .selected)
        #expect(Self.statuses(report.servers) == ["a": "falseticker", "b": "falseticker"])
        #expect(report.roughtime?.agreedOffsets == nil)
        #expect(report.roughtime?.error?.contains("time floor") == true)
    }

    @Test func aSplitRoughtimeQueryAloneGivesNoTimeAndSaysWhy() throws {
        let split = Self.roughtime([Self.signed, Self.lie])
        #expect {
            try Self.decide([], roughtime: split, mode: .require)
        } throws: { error in
            guard let error = error as? SyncError else { return false }
            return error.code == .noMajority && error.reason.contains("Roughtime: ")
                && error.roughtime?.agreedOffsets == nil
        }
    }
}
