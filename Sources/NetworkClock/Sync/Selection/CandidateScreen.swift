import TimeValues

/// Why a candidate may not decide the time.
enum Rejection: Hashable, Sendable {
    /// Not used: the authentication policy keeps it out.
    case unauthenticated(String)
    /// It cannot be right: the floor, its certificates or the majority rule it out.
    case falseticker(String)

    /// The reason, in words.
    var reason: String {
        switch self {
        case .unauthenticated(let reason), .falseticker(let reason): reason
        }
    }
}

/// A rule that rules candidates out before the vote, from their own evidence alone.
protocol CandidateScreen: Sendable {
    /// The candidates (by ``Candidate/index``) this rule keeps out, with why.
    func rejections(among candidates: [Candidate]) -> [Int: Rejection]
    /// What a candidate it kept still proves under this rule (the rule's part of the interval).
    func narrowed(_ candidate: Candidate) -> Candidate
}

extension CandidateScreen {
    /// A rule that only rules out keeps a candidate's interval whole.
    func narrowed(_ candidate: Candidate) -> Candidate { candidate }
}

/// A rule that rules candidates out once the vote has given the interval they agree on.
protocol AgreementCheck: Sendable {
    /// The candidates (by ``Candidate/index``) that are not consistent with `agreed`, with why.
    func rejections(among candidates: [Candidate], agreed: TrueTimeInterval) -> [Int: Rejection]
}
