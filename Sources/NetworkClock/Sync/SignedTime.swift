import Roughtime
import SNTP
import TimeBase

/// Roughtime's part of a sync once its query finished: its report and, when a majority of its
/// servers agreed, the signed interval as one more ``Candidate`` of the selection.
struct SignedTime: Sendable {
    /// The index the Roughtime candidate carries: it has no place in the NTP or HTTP report lists.
    static let candidateIndex = -1

    /// The finished query.
    var result: RoughtimeQueryResult
    /// The report's summary of it; its agreement is withdrawn when the selection rules it out.
    var summary: SyncReport.RoughtimeSummary

    init(_ result: RoughtimeQueryResult) {
        self.result = result
        summary = SyncReport.RoughtimeSummary(result)
    }

    /// Each server's part, for the report's list.
    var servers: [SyncReport.Server] { result.servers.map(SyncReport.Server.init) }

    /// The agreed signed time, when a majority of the servers agreed.
    var agreement: RoughtimeAgreement? { try? result.agreement.get() }

    /// The agreed signed time as a candidate: authenticated, resting on no certificate.
    var candidate: Candidate? {
        guard let agreement else { return nil }
        let agreeing = agreement.agreeing.map { result.servers[$0] }
        return Candidate(
            index: Self.candidateIndex, name: "roughtime", kind: .roughtime, interval: agreement.interval,
            delay: agreeing.compactMap(\.roundTrip).min() ?? .zero, isAuthenticated: true, certificates: [])
    }

    /// Withdraws the agreement from the report when the selection ruled the signed time out.
    mutating func apply(_ rejected: [Int: Rejection]) {
        guard let rejection = rejected[Self.candidateIndex] else { return }
        summary.agreedOffsets = nil
        summary.error = "the agreed signed time was not used: " + rejection.reason
    }

    /// The report of a sync whose selected candidate is the signed time, combined into `interval`.
    func decidedReport(_ interval: TrueTimeInterval, elapsed: Duration) -> SyncReport? {
        guard let agreement, let candidate else { return nil }
        let names = agreement.agreeing.map { result.servers[$0].name }.joined(separator: ", ")
        let wall = agreement.wall + (interval.instant - agreement.interval.instant)
        let trueTime = UnixTime(sinceEpoch: interval.midpoint.sinceEpoch.flooredToNanosecond)
        return SyncReport(
            trueTime: trueTime, monotonic: interval.instant,
            errorBound: interval.radius.ceiledToNanosecond + .nanoseconds(1),
            offset: interval.midpoint - wall,
            delay: candidate.delay, source: .roughtime,
            server: "roughtime (\(agreement.agreeing.count) of \(agreement.valid): \(names))", servers: [],
            elapsed: elapsed)
    }

    /// `report` with Roughtime's part of the sync: the chain's summary, each server's part last.
    func attached(to report: SyncReport) -> SyncReport {
        var report = report
        report.roughtime = summary
        report.servers += servers
        return report
    }
}
