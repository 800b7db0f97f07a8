import SNTP
import TimeValues

extension SourceSelection.Decision {
    /// Why the decision cannot stand although the vote succeeded: every authenticated source of one
    /// kind (NTS, Roughtime) was outvoted while another authenticated kind decided, so one of the two
    /// kinds is wrong and neither may set the time. One liar among others of its kind is only a
    /// falseticker. Nil when no authenticated kind was outvoted whole.
    func authenticatedConflict(among candidates: [Candidate]) -> String? {
        let authenticated = candidates.filter(\.isAuthenticated)
        guard let winner = authenticated.first(where: { tookPart($0.index) }) else { return nil }
        for kind in Set(authenticated.map(\.kind)) where kind != winner.kind {
            let ofKind = authenticated.filter { $0.kind == kind }
            guard ofKind.allSatisfy({ outcome.falsetickers.contains($0.index) }), let loser = ofKind.first
            else {
                continue
            }
            return SyncError.conflict(winner, loser, agreed: outcome.interval)
        }
        return nil
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
        let what =
            candidate.kind == .roughtime
            ? "signed Roughtime time of \(candidate.name)" : "NTS time of \(candidate.name)"
        return "\(what) \(candidate.interval)"
    }
}
