import SNTP
import TimeBase

/// The one selection every source kind goes through (NTP, NTS, Roughtime and HTTP(S) alike):
///
/// 1. each ``CandidateScreen`` rules candidates out on their own evidence: the time floor,
///    Roughtime's signed time, the authentication policy;
/// 2. the intersection algorithm and the combine method (``SourceCombiner``) give the interval the
///    rest agree on, rejecting falsetickers;
/// 3. each ``AgreementCheck`` drops the candidates inconsistent with that interval (a cold start's
///    certificate validity), and the vote is taken again without them;
/// 4. on a cold start, the ``BootstrapMajority`` must hold.
struct SourceSelection: Sendable {
    /// The combined interval, and every candidate ruled out with why.
    struct Decision: Sendable {
        var outcome: SourceCombiner.Outcome
        var rejected: [Int: Rejection]
    }

    /// Why no time was decided, with the candidates ruled out on the way.
    enum Failure: Error {
        /// Every candidate was ruled out (or there were none).
        case noCandidates(rejected: [Int: Rejection])
        /// The candidates left do not agree by a majority.
        case noMajority(Intersection.Failure, rejected: [Int: Rejection])
        /// A cold start whose agreeing sources are not a majority of those configured.
        case bootstrapRefused(String, rejected: [Int: Rejection])

        /// The candidates ruled out before the failure.
        var rejected: [Int: Rejection] {
            switch self {
            case .noCandidates(let rejected), .noMajority(_, let rejected),
                .bootstrapRefused(_, let rejected):
                rejected
            }
        }
    }

    var screens: [any CandidateScreen]
    var combiner: SourceCombiner
    var checks: [any AgreementCheck]
    var majority: BootstrapMajority?

    /// The screens, checks and majority rule `policy` and this sync's `facts` ask for. `ntsConfigured` says whether NTS
    /// servers are among the sources; `configured` names every configured source that may decide
    /// (and whether it is of an authenticated kind), `noun` what they are called.
    init(policy: SyncPolicy, facts: SyncFacts, ntsConfigured: Bool, configured: [String: Bool], noun: String)
    {
        screens = []
        if let floor = facts.floor { screens.append(TimeFloorScreen(floor: floor)) }
        screens.append(SignedTimeScreen(tolerancePPM: policy.frequencyTolerancePPM))
        screens.append(AuthenticationScreen(mode: policy.ntsMode, ntsConfigured: ntsConfigured))
        combiner = SourceCombiner(method: policy.combine, tolerancePPM: policy.frequencyTolerancePPM)
        let coldStart = facts.certificateTime == .unchecked
        checks = coldStart ? [CertificateValidityCheck()] : []
        majority =
            coldStart ? BootstrapMajority(configured: configured, mode: policy.ntsMode, noun: noun) : nil
    }

    /// Decides the time from `candidates`.
    func decide(_ candidates: [Candidate]) throws(Failure) -> Decision {
        var rejected: [Int: Rejection] = [:]
        var remaining = candidates
        func drop(_ ruledOut: [Int: Rejection]) {
            rejected.merge(ruledOut) { first, _ in first }
            remaining.removeAll { ruledOut[$0.index] != nil }
        }
        for screen in screens {
            drop(screen.rejections(among: remaining))
            remaining = remaining.map(screen.narrowed)
        }
        var outcome: SourceCombiner.Outcome
        while true {
            guard !remaining.isEmpty else { throw .noCandidates(rejected: rejected) }
            do {
                outcome = try combiner.combine(remaining)
            } catch {
                throw .noMajority(error, rejected: rejected)
            }
            var inconsistent: [Int: Rejection] = [:]
            for check in checks {
                inconsistent.merge(check.rejections(among: remaining, agreed: outcome.interval)) { first, _ in
                    first
                }
            }
            guard !inconsistent.isEmpty else { break }
            drop(inconsistent)
        }
        for index in outcome.falsetickers {
            rejected[index] = .falseticker("outside the interval the majority of sources agree on")
        }
        if let majority {
            let agreeing = Set([outcome.selected] + outcome.survivors)
            if let reason = majority.refusal(agreeing: remaining.filter { agreeing.contains($0.index) }) {
                throw .bootstrapRefused(reason, rejected: rejected)
            }
        }
        return Decision(outcome: outcome, rejected: rejected)
    }
}
