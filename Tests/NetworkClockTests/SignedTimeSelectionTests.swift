import Foundation
import NetClockPlatform
import Roughtime
import SNTP
import Testing
import TimeBase

@testable import NetworkClock

/// Roughtime's agreed signed time as one candidate of the selection (``SignedTime``), on fixed
/// values: which time wins under each NTS mode, when authenticated kinds of source disagree, what
/// the floor does to the signed time, and what a failed Roughtime query leaves to the others.
@Suite struct SignedTimeSelectionTests {
    static let instant = MonotonicInstant(sinceOrigin: .seconds(500))
    static let wall = UnixTime(sinceEpoch: .seconds(1_796_040_000))
    /// The signed interval: the true time is within 2 s of the wall clock's + 1 s.
    static let signed = TrueTimeInterval(
        earliest: wall + .seconds(-1), latest: wall + .seconds(3), instant: instant)

    /// A Roughtime query whose two servers agree on ``signed`` (or, `agreeing: false`, split).
    static func query(agreeing: Bool = true) throws -> RoughtimeQueryResult {
        let other =
            agreeing
            ? signed
            : TrueTimeInterval(earliest: wall + .seconds(600), latest: wall + .seconds(604), instant: instant)
        let agreement = Result { () throws(RoughtimeError) in
            try RoughtimeAgreement.select(
                [0: signed, 1: other], wall: wall, reference: instant, minimumAgreeing: 1)
        }
        let reports = ["a", "b"].map { RoughtimeServerReport(name: $0, status: .agreed) }
        return RoughtimeQueryResult(servers: reports, agreement: agreement, chain: RoughtimeChain())
    }

    /// One source's candidate at `offset` ± 5 ms from the wall clock, NTS or plain NTP.
    static func candidate(_ index: Int, offset: Duration, authenticated: Bool) -> Candidate {
        Candidate(
            index: index, name: authenticated ? "nts\(index).example" : "ntp\(index).example",
            kind: authenticated ? .nts : .ntp,
            interval: TrueTimeInterval(time: wall + offset, bound: .milliseconds(5), instant: instant),
            delay: .milliseconds(2), isAuthenticated: authenticated, certificates: [])
    }

    static func selection(_ mode: NetworkClock.NTSMode, floor: UnixTime? = nil) -> SourceSelection {
        var policy = SyncPolicy(servers: [])
        policy.ntsMode = mode
        return SourceSelection(
            policy: policy, facts: SyncFacts(floor: floor), ntsConfigured: false, configured: [:],
            noun: "servers")
    }

    /// The selection over `others` and the signed time of `query`.
    static func decide(
        _ others: [Candidate], mode: NetworkClock.NTSMode, query: RoughtimeQueryResult, floor: UnixTime? = nil
    ) throws(SourceSelection.Failure) -> (SourceSelection.Decision, SignedTime, [Candidate]) {
        var signed = SignedTime(query)
        let candidates = others + [signed.candidate].compactMap { $0 }
        do {
            let decision = try selection(mode, floor: floor).decide(candidates)
            signed.apply(decision.rejected)
            return (decision, signed, candidates)
        } catch {
            throw error
        }
    }

    @Test func anNTSResultInsideTheSignedIntervalStands() throws {
        let nts = Self.candidate(0, offset: .milliseconds(1_250), authenticated: true)
        let (decision, signed, candidates) = try Self.decide([nts], mode: .require, query: try Self.query())
        #expect(decision.outcome.selected == 0)
        #expect(decision.outcome.interval == nts.interval)
        #expect(decision.authenticatedConflict(among: candidates) == nil)
        #expect(signed.summary.agreedOffsets == .seconds(-1)...(.seconds(3)))
    }

    @Test func anNTSResultThatContradictsRoughtimeGivesNoTime() throws {
        let nts = Self.candidate(0, offset: .seconds(30), authenticated: true)
        let query = try Self.query()
        let candidates = [nts] + [SignedTime(query).candidate].compactMap { $0 }
        #expect {
            try Self.decide([nts], mode: .require, query: query)
        } throws: { error in
            guard let failure = error as? SourceSelection.Failure else { return false }
            return SyncError(failure, candidates: candidates, servers: []).code
                == .authenticatedSourcesDisagree
        }
    }

    @Test func aSignedTimeOutvotedByNTSServersIsAConflictNotAFalseticker() throws {
        let agreeing = (0..<3).map { Self.candidate($0, offset: .seconds(30), authenticated: true) }
        let (decision, _, candidates) = try Self.decide(agreeing, mode: .require, query: try Self.query())
        #expect(decision.outcome.falsetickers == [SignedTime.candidateIndex])
        let conflict = try #require(decision.authenticatedConflict(among: candidates))
        #expect(conflict.contains("signed Roughtime time") && conflict.contains("NTS time"))
    }

    @Test(arguments: [NetworkClock.NTSMode.require, .prefer])
    func underRequireAndPreferTheSignedTimeDecidesOverPlainNTP(mode: NetworkClock.NTSMode) throws {
        let ntp = Self.candidate(0, offset: .milliseconds(800), authenticated: false)
        let (decision, signed, _) = try Self.decide([ntp], mode: mode, query: try Self.query())
        #expect(decision.outcome.selected == SignedTime.candidateIndex)
        #expect(decision.rejected[0] == .unauthenticated(decision.rejected[0]?.reason ?? ""))
        #expect(decision.rejected[0]?.reason.contains("Roughtime") == true)
        let report = try #require(signed.decidedReport(decision.outcome.interval, elapsed: .zero))
        #expect(report.source == .roughtime)
        #expect(report.offset == .seconds(1) && report.errorBound >= .seconds(2))
    }

    @Test func underMixAnAgreeingPlainResultKeepsItsPrecision() throws {
        let ntp = Self.candidate(0, offset: .milliseconds(800), authenticated: false)
        let (decision, _, _) = try Self.decide([ntp], mode: .mix, query: try Self.query())
        #expect(decision.outcome.selected == 0)
        #expect(decision.outcome.interval.radius == .milliseconds(5))
        #expect(decision.rejected.isEmpty)
    }

    @Test(arguments: [NetworkClock.NTSMode.require, .prefer, .mix])
    func plainResultsOutsideTheSignedIntervalAreFalsetickersHoweverMany(mode: NetworkClock.NTSMode) throws {
        let plain = (0..<3).map { Self.candidate($0, offset: .seconds(-3_600), authenticated: false) }
        let (decision, _, _) = try Self.decide(plain, mode: mode, query: try Self.query())
        #expect(decision.outcome.selected == SignedTime.candidateIndex)
        #expect(decision.rejected.keys.sorted() == [0, 1, 2])
        #expect(decision.rejected.values.allSatisfy { $0 == .falseticker($0.reason) })
    }

    @Test func whenTheOthersGiveNoTimeTheSignedTimeDoes() throws {
        let (decision, signed, _) = try Self.decide([], mode: .require, query: try Self.query())
        let report = try #require(signed.decidedReport(decision.outcome.interval, elapsed: .zero))
        #expect(report.source == .roughtime)
        #expect(report.server == "roughtime (2 of 2: a, b)")
        // The anchor it gives is the signed interval, never tighter.
        #expect(report.anchor.errorBound >= .seconds(2))
        #expect(abs(report.anchor.trueTime - (Self.wall + .seconds(1))) <= .nanoseconds(1))
    }

    @Test func aSignedTimeWhollyBeforeTheFloorIsWithdrawnAndTheOthersDecide() throws {
        let ntp = Self.candidate(0, offset: .seconds(3_600), authenticated: false)
        let (decision, signed, _) = try Self.decide(
            [ntp], mode: .prefer, query: try Self.query(), floor: Self.wall + .seconds(60))
        #expect(decision.outcome.selected == 0)
        #expect(decision.rejected[SignedTime.candidateIndex] != nil)
        #expect(signed.summary.agreedOffsets == nil)
        #expect(signed.summary.error?.contains("time floor") == true)
    }

    @Test func withoutAgreementRoughtimeOnlyReports() throws {
        let split = SignedTime(try Self.query(agreeing: false))
        #expect(split.candidate == nil)
        #expect(split.summary.agreedOffsets == nil && split.summary.error != nil)
        let failure = SyncError.noUsableSource([]).adding(split)
        #expect(failure.reason.contains("Roughtime: "))
    }
}
