import ClockCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NetClockTLS
import Roughtime
import SNTP
import TimeValues

/// The one decision of a sync: a round's evidence (``RoundEvidence``) through the one selection
/// (``SourceSelection``), then the report written from the decision. Every source kind takes part
/// as the candidates it yielded: each NTP and NTS burst, each Roughtime server, and the HTTP(S)
/// measurements as the selection's fallback tier. I/O-free; the round calls ``needsFallback(_:)``
/// to know whether to measure HTTP(S).
struct SyncDecision: Sendable {
    /// The servers and how they are selected.
    var policy: SyncPolicy
    /// The HTTP(S) URLs of the fallback (for a cold start's majority over them).
    var httpURLs: [URL]
    /// The least the true time was proven to be; nil when unknown.
    var floor: UnixTime?
    /// What is known of leap seconds before the sync, for smearing servers.
    var smear = SmearKnowledge()

    /// The candidates of `evidence`, each indexed by its source's place in the report's list (NTP
    /// and NTS, then HTTP(S), then Roughtime), smearing servers mapped onto stepping time; and the
    /// reports in that order.
    private func numbered(_ evidence: RoundEvidence) -> (
        primary: [Candidate], fallback: [Candidate], reports: [SyncReport.Server]
    ) {
        let http = evidence.http ?? []
        var reports = (evidence.ntp + http + evidence.roughtimeServers).map(\.report)
        var primary: [Candidate] = []
        var fallback: [Candidate] = []
        for (index, source) in (evidence.ntp + http + evidence.roughtimeServers).enumerated() {
            guard var candidate = source.candidate else { continue }
            candidate.index = index
            if candidate.kind == .http || candidate.kind == .https {
                fallback.append(candidate)
            } else {
                primary.append(candidate)
            }
        }
        mapSmearing(&primary, reports: &reports)
        return (primary, fallback, reports)
    }

    /// The selection for `evidence`'s certificate time: a cold start's agreement checks and
    /// majorities when certificates were not checked at the handshake.
    private func selection(_ evidence: RoundEvidence) -> SourceSelection {
        var facts = SyncFacts(floor: floor)
        facts.certificateTime = evidence.certificateTime
        facts.smear = smear
        return SourceSelection(
            policy: policy, facts: facts, ntsConfigured: policy.usesNTS,
            configured: Dictionary(policy.servers.map { ($0.description, $0.usesNTS) }) { first, _ in first },
            fallbackConfigured: Dictionary(httpURLs.map { ($0.absoluteString, false) }) { first, _ in first })
    }

    /// Whether the selection needs the HTTP(S) fallback with `evidence`: no NTP or NTS candidate
    /// would take part (none answered or all were ruled out, or Roughtime alone decided). Not when
    /// the sources disagree: that is evidence of a fault or an attack, which no fallback papers over.
    func needsFallback(_ evidence: RoundEvidence) -> Bool {
        let (primary, _, _) = numbered(evidence)
        do {
            let decision = try selection(evidence).decide(primary)
            guard decision.authenticatedConflict(among: primary) == nil else { return false }
            return !primary.contains { $0.kind.isNTP && decision.tookPart($0.index) }
        } catch {
            if case .noCandidates = error { return true }
            return false
        }
    }

    /// A provisional decision on a round still going on: ``decide(_:)``, and, because the replies
    /// still awaited could outvote the ones in, only when the NTP and NTS sources that decide are a
    /// strict majority of those the round is asking. Nil otherwise.
    func decideProvisionally(_ evidence: RoundEvidence) -> SyncReport? {
        guard let report = try? decide(evidence) else { return nil }
        let asked = evidence.ntp.filter { $0.report.status != .skipped && $0.report.status != .error }.count
        let agreeing = report.servers.prefix(evidence.ntp.count).filter(\.tookPart).count
        return agreeing * 2 > asked ? report : nil
    }

    /// Decides the time from `evidence` and writes the report.
    /// - Throws: ``SyncError`` naming every source's part and the certificate time.
    func decide(_ evidence: RoundEvidence) throws(SyncError) -> SyncReport {
        do {
            return try decideOrFail(evidence)
        } catch {
            var error = error
            error.certificateCheck = evidence.certificateCheck
            throw error
        }
    }

    private func decideOrFail(_ evidence: RoundEvidence) throws(SyncError) -> SyncReport {
        var (primary, fallback, reports) = numbered(evidence)
        let candidates = primary + fallback
        let roughtimeStart = evidence.ntp.count + (evidence.http?.count ?? 0)
        guard !evidence.cancelled else {
            throw failure(
                .cancelled, reports: reports, evidence: evidence, decision: nil, start: roughtimeStart)
        }
        guard !policy.servers.isEmpty || !httpURLs.isEmpty || evidence.roughtime != nil else {
            throw .noServers
        }
        let decision: SourceSelection.Decision
        do {
            decision = try selection(evidence).decide(primary, fallback: fallback)
        } catch {
            reports.mark(error.rejected)
            let failure = SyncError(error, candidates: candidates, servers: reports)
            throw self.failure(
                failure, reports: reports, evidence: evidence, decision: nil, start: roughtimeStart)
        }
        reports.mark(decision.rejected)
        if let conflict = decision.authenticatedConflict(among: candidates) {
            let failure = SyncError(code: .authenticatedSourcesDisagree, reason: conflict, servers: reports)
            throw self.failure(
                failure, reports: reports, evidence: evidence, decision: decision, start: roughtimeStart)
        }
        let outcome = decision.outcome
        guard let selected = candidates.first(where: { $0.index == outcome.selected }) else {
            throw .noUsableSource(reports)
        }
        let agreeing = candidates.filter { decision.tookPart($0.index) }
        let (trueTime, bound) = outcome.interval.pointEstimate
        let localWall = evidence.mapping.wallTime(at: outcome.interval.instant)
        var server = reports[selected.index].nameAndAddress
        var source = TimeSource.ntp
        switch selected.kind {
        case .ntp, .nts:
            reports[selected.index].status = .selected
        case .http, .https:
            reports[selected.index].status = .selected
            source = .http
        case .roughtime:
            source = .roughtime
            let signed = agreeing.filter { $0.kind == .roughtime }
            let valid = evidence.roughtimeServers.filter { $0.candidate != nil }.count
            server = "roughtime (\(signed.count) of \(valid): \(signed.map(\.name).joined(separator: ", ")))"
        }
        var report = SyncReport(
            trueTime: trueTime, monotonic: outcome.interval.instant, errorBound: bound,
            offset: trueTime - localWall,
            delay: selected.kind == .roughtime
                ? agreeing.filter { $0.kind == .roughtime }.map(\.delay).min() ?? .zero
                : selected.delay,
            source: source, server: server, servers: reports, elapsed: evidence.end - evidence.start)
        report.isAuthenticated = agreeing.allSatisfy(\.isAuthenticated)
        report.roughtime = summary(
            evidence, decision: decision, error: nil, reports: &report.servers, start: roughtimeStart)
        report.certificateCheck = evidence.certificateCheck
        if report.certificateCheck == .trustedClock || report.certificateCheck == .roughtime {
            report.certificateWarnings = Self.edges(agreeing.map { ($0.name, $0.certificates) }, of: report)
        }
        report.isDowngraded = policy.usesAuthenticatedSources && !agreeing.contains(where: \.isAuthenticated)
        // A smearing server announces no leap (it smears it): it does not vote.
        report.leapVoters = agreeing.compactMap { candidate in
            let source = reports[candidate.index]
            guard candidate.kind.isNTP, !source.isSmearing else { return nil }
            return Self.voter(source)
        }
        let vote = LeapVote(report.leapVoters, authenticatedOnly: policy.usesNTS)
        report.leapDisagreeing = vote.disagreeing
        if let sign = vote.agreed { report.leapSchedule = .announced(sign: sign, at: report.trueTime) }
        return report
    }

    /// `error` with the Roughtime servers' part: the summary, and its reason in the error's.
    private func failure(
        _ error: SyncError, reports: [SyncReport.Server], evidence: RoundEvidence,
        decision: SourceSelection.Decision?, start: Int
    ) -> SyncError {
        guard evidence.roughtime != nil else { return error }
        var servers = error.servers.isEmpty ? reports : error.servers
        let summary = summary(evidence, decision: decision, error: error, reports: &servers, start: start)
        let reason = summary?.error.map { "\(error.reason); Roughtime: \($0)" } ?? error.reason
        return SyncError(
            code: error.code, reason: reason, servers: servers, majorityFailure: error.majorityFailure,
            roughtime: summary)
    }

    /// What the Roughtime servers gave, from the one vote: the servers that took part `agreed`,
    /// the ones it ruled out `falseticker`s (the liars), the others with a valid reply
    /// `unresolved`; the agreed interval is where the ones that took part meet.
    private func summary(
        _ evidence: RoundEvidence, decision: SourceSelection.Decision?, error: SyncError?,
        reports: inout [SyncReport.Server], start: Int
    ) -> SyncReport.RoughtimeSummary? {
        guard let result = evidence.roughtime else { return nil }
        var summary = SyncReport.RoughtimeSummary(result)
        var agreed: [TrueTimeInterval] = []
        var liars: [String] = []
        for (offset, source) in evidence.roughtimeServers.enumerated() {
            let index = start + offset
            guard let candidate = source.candidate, reports.indices.contains(index) else { continue }
            if let decision, decision.tookPart(index) {
                reports[index].status = .agreed
                reports[index].reason = nil
                agreed.append(candidate.interval)
            } else if reports[index].status == .falseticker {
                liars.append(candidate.name)
            } else {
                reports[index].status = .unresolved
            }
        }
        summary.liars = liars
        summary.agreeing = agreed.count
        let aged = agreed.agedToLatest(tolerancePPM: policy.frequencyTolerancePPM)
        let common = aged.dropFirst().reduce(aged.first) { $0?.intersection($1) }
        if let common {
            summary.agreedOffsets = common.offsets(fromWall: evidence.mapping.wallTime(at: common.instant))
            summary.error = nil
        } else {
            summary.agreedOffsets = nil
            let ruledOut = evidence.roughtimeServers.indices.compactMap {
                decision?.rejected[start + $0]?.reason
            }.first
            if case .failure(let failure) = result.agreement, ruledOut == nil {
                summary.error = failure.description
            } else if let ruledOut {
                summary.error = "the signed time was not used: " + ruledOut
            } else if let error {
                summary.error = "the signed time was not used: " + error.reason
            }
        }
        return summary
    }

    /// The certificates of the sources that took part whose validity begins or ends inside the
    /// result's interval: valid at the estimate the handshake was checked at, perhaps not at the
    /// true time.
    private static func edges(_ chains: [(String, [CertificateValidity])], of report: SyncReport) -> [String]
    {
        let earliest = (report.trueTime - report.errorBound).secondsDouble
        let latest = (report.trueTime + report.errorBound).secondsDouble
        return chains.flatMap { name, chain in
            chain.flatMap { certificate in
                certificate.edges(from: earliest, to: latest).map { edge, seconds in
                    "\(name): the validity of \(certificate.subject) \(edge) at "
                        + "\(ISO8601.format(UnixTime(sinceEpoch: .seconds(seconds)), fractionDigits: 0)), "
                        + "inside the error bound of the time it was checked against"
                }
            }
        }
    }
}

extension SyncDecision {
    /// `report`'s leap indicator as a vote, when it has a sample.
    static func voter(_ report: SyncReport.Server) -> LeapVote.Voter? {
        guard let best = report.ntp?.best else { return nil }
        let sign: Int64 =
            switch best.reply.leap {
            case .insertSecond: 1
            case .deleteSecond: -1
            default: 0
            }
        return LeapVote.Voter(name: report.name, sign: sign, isAuthenticated: report.isAuthenticated)
    }

    /// Marks the configured smearing servers' reports and maps their candidates' intervals onto
    /// stepping time (``SmearMapping``) with what is known of the leap: the table and held anchor,
    /// and the announcement every stepping candidate agrees on (a single dissenter makes it
    /// unknown, so no one server can pick the mapping).
    func mapSmearing(_ candidates: inout [Candidate], reports: inout [SyncReport.Server]) {
        guard !policy.smearingServers.isEmpty else { return }
        for index in reports.indices
        where reports[index].ntp != nil
            && policy.smearingServers.contains(reports[index].name)
        {
            reports[index].isSmearing = true
        }
        let stepping = candidates.filter { $0.kind.isNTP && !reports[$0.index].isSmearing }
        let vote = LeapVote(
            stepping.compactMap { Self.voter(reports[$0.index]) }, authenticatedOnly: policy.usesNTS)
        var knowledge = smear
        if let sign = vote.agreed, let first = stepping.first {
            knowledge.announced = (sign, first.interval.midpoint)
        }
        for position in candidates.indices where reports[candidates[position].index].isSmearing {
            let interval = candidates[position].interval
            var mapped = interval
            if let midnight = SmearMapping.window(of: interval) {
                let mapping = SmearMapping(
                    midnight: midnight, signs: knowledge.signs(at: midnight, latest: interval.latest))
                mapped = mapping.map(interval)
            }
            candidates[position].interval = mapped
            let index = candidates[position].index
            reports[index].smearCorrection = mapped.midpoint - interval.midpoint
            reports[index].smearWidening = mapped.radius - interval.radius
        }
    }
}
