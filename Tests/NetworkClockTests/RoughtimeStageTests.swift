import Foundation
import NetClockPlatform
import Roughtime
import SNTP
import Testing
import TimeBase

@testable import NetworkClock

/// The rules that combine the signed Roughtime interval with the other sources' result
/// (``RoughtimeStage/combine(_:with:mode:tolerancePPM:)``), on fixed values: which time wins under
/// each NTS mode, when authenticated kinds of source disagree, and what a failed Roughtime query
/// leaves to the others.
@Suite struct RoughtimeStageTests {
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

    /// A result from one source at `offset` ± 5 ms, authenticated (NTS) or not.
    static func report(offset: Duration, authenticated: Bool) -> SyncReport {
        var source = SyncReport.NTPSource(
            server: authenticated ? .nts("nts.example") : ServerName(host: "ntp.example"), address: nil,
            status: .selected)
        source.reason = nil
        var report = SyncReport(
            trueTime: wall + offset, monotonic: instant, errorBound: .milliseconds(5), offset: offset,
            delay: .milliseconds(2), source: .ntp, server: "ntp.example", sources: [source], elapsed: .zero)
        report.isAuthenticated = authenticated
        return report
    }

    @Test func anNTSResultInsideTheSignedIntervalStands() throws {
        let ntp = Self.report(offset: .milliseconds(1_250), authenticated: true)
        let combined = try RoughtimeStage.combine(
            .success(ntp), with: try Self.query(), mode: .require, tolerancePPM: 15
        ).get()
        #expect(combined.trueTime == ntp.trueTime && combined.errorBound == .milliseconds(5))
        #expect(combined.isAuthenticated && combined.source == .ntp)
        #expect(combined.roughtime?.agreedOffsets == .seconds(-1)...(.seconds(3)))
    }

    @Test func anNTSResultThatContradictsRoughtimeGivesNoTime() throws {
        let ntp = Self.report(offset: .seconds(30), authenticated: true)
        let outcome = RoughtimeStage.combine(
            .success(ntp), with: try Self.query(), mode: .require, tolerancePPM: 15)
        #expect(throws: SyncError(code: .authenticatedSourcesDisagree, reason: "")) { try outcome.get() }
        guard case .failure(let error) = outcome else { return }
        #expect(error.roughtime != nil && error.sources.count == 1)
    }

    @Test(arguments: [NetworkClock.NTSMode.require, .prefer])
    func underRequireAndPreferTheSignedTimeDecidesOverPlainNTP(mode: NetworkClock.NTSMode) throws {
        let ntp = Self.report(offset: .milliseconds(800), authenticated: false)
        let combined = try RoughtimeStage.combine(
            .success(ntp), with: try Self.query(), mode: mode, tolerancePPM: 15
        )
        .get()
        #expect(combined.source == .roughtime && combined.isAuthenticated)
        #expect(combined.offset == .seconds(1) && combined.errorBound >= .seconds(2))
        #expect(combined.sources.first?.status == .unauthenticated)
        #expect(combined.sources.first?.reason?.contains("Roughtime answered") == true)
    }

    @Test func underMixAnAgreeingPlainResultKeepsItsPrecision() throws {
        let ntp = Self.report(offset: .milliseconds(800), authenticated: false)
        let combined = try RoughtimeStage.combine(
            .success(ntp), with: try Self.query(), mode: .mix, tolerancePPM: 15
        )
        .get()
        #expect(combined.source == .ntp && !combined.isAuthenticated)
        #expect(combined.errorBound == .milliseconds(5))
    }

    @Test(arguments: [NetworkClock.NTSMode.require, .prefer, .mix])
    func aPlainResultOutsideTheSignedIntervalIsAFalseticker(mode: NetworkClock.NTSMode) throws {
        let ntp = Self.report(offset: .seconds(-3_600), authenticated: false)
        let combined = try RoughtimeStage.combine(
            .success(ntp), with: try Self.query(), mode: mode, tolerancePPM: 15
        )
        .get()
        #expect(combined.source == .roughtime && combined.isAuthenticated)
        #expect(combined.sources.first?.status == .falseticker)
    }

    @Test func whenTheOthersGiveNoTimeTheSignedTimeDoes() throws {
        let failure = SyncError.noUsableSource([
            SyncReport.NTPSource(server: ServerName(host: "ntp.example"), address: nil, status: .timeout)
        ])
        let combined = try RoughtimeStage.combine(
            .failure(failure), with: try Self.query(), mode: .require, tolerancePPM: 15
        )
        .get()
        #expect(combined.source == .roughtime && combined.isAuthenticated)
        #expect(combined.sources.map(\.status) == [.timeout])
        // The anchor it gives is the signed interval, never tighter.
        #expect(combined.anchor.errorBound >= .seconds(2))
        #expect(abs(combined.anchor.trueTime - (Self.wall + .seconds(1))) <= .nanoseconds(1))
    }

    @Test func withoutAgreementRoughtimeOnlyReports() throws {
        let split = try Self.query(agreeing: false)
        let ntp = Self.report(offset: .milliseconds(800), authenticated: true)
        let combined = try RoughtimeStage.combine(
            .success(ntp), with: split, mode: .require, tolerancePPM: 15
        ).get()
        #expect(combined.trueTime == ntp.trueTime && combined.source == .ntp)
        #expect(combined.roughtime?.agreedOffsets == nil && combined.roughtime?.error != nil)
        let failure = SyncError.noUsableSource([])
        let failed = RoughtimeStage.combine(.failure(failure), with: split, mode: .require, tolerancePPM: 15)
        guard case .failure(let error) = failed else {
            Issue.record("a split Roughtime query gave time: \(failed)")
            return
        }
        #expect(error.reason.contains("Roughtime: "))
    }
}
