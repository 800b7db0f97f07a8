import SNTP
import TimeBase

extension SourceSelection.Decision {
    /// Why the decision cannot stand although the vote succeeded: authenticated sources of two
    /// kinds (NTS and Roughtime's signed time) contradict each other, so one of them is wrong and
    /// neither may set the time. Nil when no authenticated candidate was outvoted by another kind.
    func authenticatedConflict(among candidates: [Candidate]) -> String? {
        let agreeing = Set([outcome.selected] + outcome.survivors)
        let kept = candidates.filter { agreeing.contains($0.index) && $0.isAuthenticated }
        let outvoted = candidates.filter { outcome.falsetickers.contains($0.index) && $0.isAuthenticated }
        guard let winner = kept.first, let loser = outvoted.first(where: { $0.kind != winner.kind }) else {
            return nil
        }
        return SyncError.conflict(winner, loser, agreed: outcome.interval)
    }
}

extension SyncError {
    /// The sync's error for a selection that decided nothing, with the reports marked so far.
    init(
        _ failure: SourceSelection.Failure, candidates: [Candidate], servers: [SyncReport.Server]
    ) {
        switch failure {
        case .noCandidates:
            self = .noUsableSource(servers)
        case .noMajority(let intersection, let rejected):
            // Authenticated candidates of two kinds left to disagree: a conflict, not a mere split.
            let left = candidates.filter { rejected[$0.index] == nil && $0.isAuthenticated }
            if let first = left.first, let other = left.first(where: { $0.kind != first.kind }) {
                self.init(
                    code: .authenticatedSourcesDisagree, reason: Self.conflict(first, other, agreed: nil),
                    servers: servers)
            } else {
                self.init(
                    code: .noMajority, reason: intersection.description, servers: servers,
                    majorityFailure: intersection)
            }
        case .bootstrapRefused(let reason, _):
            self.init(code: .noMajority, reason: reason, servers: servers)
        }
    }

    /// The reason of a conflict between two authenticated kinds.
    static func conflict(_ one: Candidate, _ other: Candidate, agreed: TrueTimeInterval?) -> String {
        "the \(Self.describe(one)) contradicts the \(Self.describe(other))"
            + (agreed.map { " (the vote gave \($0))" } ?? "") + ": two authenticated kinds of source disagree"
    }

    private static func describe(_ candidate: Candidate) -> String {
        let what = candidate.kind == .roughtime ? "signed Roughtime time" : "NTS time of \(candidate.name)"
        return "\(what) \(candidate.interval)"
    }
}
