import SNTP
import TimeValues

/// The one selection every source kind goes through (NTP, NTS, each Roughtime server, and HTTP(S)
/// as the fallback tier):
///
/// 1. each ``CandidateScreen`` rules candidates out on their own evidence: the time floor (which
///    also cuts each interval to it), Roughtime's signed time, the authentication policy;
/// 2. the intersection algorithm and the combine method (``SourceCombiner``) give the interval the
///    rest agree on, rejecting falsetickers;
/// 3. each ``AgreementCheck`` drops the candidates inconsistent with that interval (a cold start's
///    certificate validity), and the vote is taken again without them;
/// 4. on a cold start, the ``BootstrapMajority`` must hold.
///
/// The HTTP(S) fallback is a policy of this selection (``decide(_:fallback:)``), not a second one:
/// its candidates vote only when no NTP or NTS candidate took part (none answered, all were ruled
/// out, or Roughtime alone decided), beside the Roughtime servers that were not ruled out. Sources
/// that answered but disagree (no majority) are evidence of a fault or an attack: no fallback
/// papers over them.
struct SourceSelection: Sendable {
    /// The combined interval, and every candidate ruled out with why.
    struct Decision: Sendable {
        var outcome: SourceCombiner.Outcome
        var rejected: [Int: Rejection]

        /// Whether candidate `index` took part: selected or a survivor.
        func tookPart(_ index: Int) -> Bool {
            outcome.selected == index || outcome.survivors.contains(index)
        }
    }

    /// Why no time was decided, with the candidates ruled out on the way.
    enum Failure: Error {
        /// Every candidate was ruled out (or there were none).
        case noCandidates(rejected: [Int: Rejection])
        /// The candidates left do not agree by a majority.
        case noMajority(Intersection.Failure, rejected: [Int: Rejection])
        /// A cold start whose agreeing sources are not a majority of those configured.
        case bootstrapRefused(String, rejected: [Int: Rejection])

        /// The same failure with `earlier` rulings added (theirs kept where both speak).
        func adding(_ earlier: [Int: Rejection]) -> Failure {
            switch self {
            case .noCandidates(let rejected):
                .noCandidates(rejected: rejected.merging(earlier) { kept, _ in kept })
            case .noMajority(let failure, let rejected):
                .noMajority(failure, rejected: rejected.merging(earlier) { kept, _ in kept })
            case .bootstrapRefused(let reason, let rejected):
                .bootstrapRefused(reason, rejected: rejected.merging(earlier) { kept, _ in kept })
            }
        }

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
    /// The cold start's majority rule over the fallback's URLs.
    var fallbackMajority: BootstrapMajority?

    /// The screens, checks and majority rules `policy` and this sync's `facts` ask for.
    /// `ntsConfigured` says whether NTS servers are among the sources; `configured` names every
    /// configured NTP and NTS server (and whether it is NTS), `fallbackConfigured` every HTTP(S)
    /// URL.
    init(
        policy: SyncPolicy, facts: SyncFacts, ntsConfigured: Bool, configured: [String: Bool],
        fallbackConfigured: [String: Bool] = [:]
    ) {
        screens = []
        if let floor = facts.floor { screens.append(TimeFloorScreen(floor: floor)) }
        screens.append(SignedTimeScreen(tolerancePPM: policy.frequencyTolerancePPM))
        screens.append(AuthenticationScreen(mode: policy.ntsMode, ntsConfigured: ntsConfigured))
        combiner = SourceCombiner(method: policy.combine, tolerancePPM: policy.frequencyTolerancePPM)
        let coldStart = facts.certificateTime == .unchecked
        checks = coldStart ? [CertificateValidityCheck()] : []
        majority =
            coldStart ? BootstrapMajority(configured: configured, mode: policy.ntsMode, noun: "servers") : nil
        fallbackMajority =
            coldStart
            ? BootstrapMajority(configured: fallbackConfigured, mode: policy.ntsMode, noun: "URLs") : nil
    }

    /// Decides the time from `candidates`, with the `fallback` tier (HTTP(S)) when they give no
    /// NTP or NTS time.
    func decide(_ candidates: [Candidate], fallback: [Candidate]) throws(Failure) -> Decision {
        // What the first vote ruled out stays ruled out in the fallback's.
        let carried: [Int: Rejection]
        do {
            let decision = try decide(candidates)
            let ntpDecided = candidates.contains { $0.kind.isNTP && decision.tookPart($0.index) }
            guard !ntpDecided, !fallback.isEmpty else { return decision }
            carried = decision.rejected
        } catch {
            guard case .noCandidates(let rejected) = error, !fallback.isEmpty else { throw error }
            carried = rejected
        }
        let signed = candidates.filter { $0.kind == .roughtime && carried[$0.index] == nil }
        var tier = self
        tier.majority = fallbackMajority
        do {
            var decision = try tier.decide(signed + fallback)
            decision.rejected.merge(carried) { kept, _ in kept }
            return decision
        } catch {
            throw error.adding(carried)
        }
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
