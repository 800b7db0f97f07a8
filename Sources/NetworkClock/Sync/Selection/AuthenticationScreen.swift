/// The ``NetworkClock/NTSMode`` as a screen over every authenticated kind (NTS, Roughtime): under
/// `require` only authenticated candidates decide (once NTS servers are configured or an
/// authenticated candidate answered); under `prefer` only they do once one of them answered; under
/// `mix` every candidate does.
struct AuthenticationScreen: CandidateScreen {
    var mode: NetworkClock.NTSMode
    /// Whether NTS servers are configured: then `require` holds even when none of them answered.
    var ntsConfigured: Bool

    func rejections(among candidates: [Candidate]) -> [Int: Rejection] {
        let answered = Set(candidates.filter(\.isAuthenticated).map(\.kind))
        let kinds = answered.map(Self.name).sorted()
        let reason: String
        switch mode {
        case .mix:
            return [:]
        case .prefer:
            guard !kinds.isEmpty else { return [:] }
            reason =
                "not used: authenticated sources answered (\(kinds.joined(separator: ", "))), and NTS mode"
                + " prefer uses only them"
        case .require:
            guard ntsConfigured || !kinds.isEmpty else { return [:] }
            reason =
                "not used: NTS mode require lets only authenticated (NTS, Roughtime) sources decide the time"
        }
        var rejected: [Int: Rejection] = [:]
        for candidate in candidates where !candidate.isAuthenticated {
            rejected[candidate.index] = .unauthenticated(reason)
        }
        return rejected
    }

    private static func name(_ kind: Candidate.Kind) -> String {
        kind == .roughtime ? "Roughtime" : kind.rawValue.uppercased()
    }
}
