import SNTP

extension NTPSyncEngine {
    /// The candidates allowed to decide the time under the policy's NTS mode; the others' reports
    /// are marked ``SyncReport/SourceStatus/unauthenticated`` with the reason. Without NTS servers
    /// every candidate is admitted.
    static func admit(_ candidates: [Candidate], from reports: inout [SyncReport.NTPSource], policy: SyncPolicy)
        -> [Candidate]
    {
        guard policy.usesNTS else { return candidates }
        let authenticated = candidates.filter { reports[$0.index].isAuthenticated }
        let reason: String
        switch policy.ntsMode {
        case .mix:
            return candidates
        case .prefer:
            guard !authenticated.isEmpty else { return candidates }
            reason = "not used: authenticated (NTS) sources answered, and NTS mode prefer uses only them"
        case .require:
            reason = "not used: NTS mode require lets only authenticated (NTS) sources decide the time"
        }
        for candidate in candidates where !reports[candidate.index].isAuthenticated {
            reports[candidate.index].status = .unauthenticated
            reports[candidate.index].reason = reason
        }
        return authenticated
    }
}
