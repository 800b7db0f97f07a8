/// The ``NetworkClock/NTSMode`` as a screen: under `require` only authenticated candidates decide;
/// under `prefer` only they do once one of them answered; under `mix` every candidate does.
struct AuthenticationScreen: CandidateScreen {
    var mode: NetworkClock.NTSMode

    func rejections(among candidates: [Candidate]) -> [Int: Rejection] {
        let reason: String
        switch mode {
        case .mix:
            return [:]
        case .prefer:
            guard candidates.contains(where: \.isAuthenticated) else { return [:] }
            reason = "not used: authenticated (NTS) sources answered, and NTS mode prefer uses only them"
        case .require:
            reason = "not used: NTS mode require lets only authenticated (NTS) sources decide the time"
        }
        var rejected: [Int: Rejection] = [:]
        for candidate in candidates where !candidate.isAuthenticated {
            rejected[candidate.index] = .unauthenticated(reason)
        }
        return rejected
    }
}
