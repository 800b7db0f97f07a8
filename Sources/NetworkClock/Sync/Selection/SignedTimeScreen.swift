import TimeValues

/// Roughtime's signed time as a screen: what a strict majority of the Roughtime servers' signed
/// intervals agree on is proven by signatures without any certificate or local clock, so an
/// unauthenticated candidate that contradicts it cannot be right, however many agree with it. It
/// matters under NTS mode `mix` (the others already keep unauthenticated candidates out once an
/// authenticated one answered). The Roughtime servers still vote one by one in the selection.
struct SignedTimeScreen: CandidateScreen {
    /// The frequency tolerance that carries intervals to a common instant.
    var tolerancePPM: Double

    func rejections(among candidates: [Candidate]) -> [Int: Rejection] {
        let signed = candidates.filter { $0.kind == .roughtime }.map(\.interval).agedToLatest(
            tolerancePPM: tolerancePPM)
        guard !signed.isEmpty, let agreement = try? Intersection.select(signed).agreement else { return [:] }
        var rejected: [Int: Rejection] = [:]
        for candidate in candidates where !candidate.isAuthenticated {
            let instant = max(candidate.interval.instant, agreement.instant)
            let overlaps = candidate.interval.aged(to: instant, tolerancePPM: tolerancePPM)
                .overlaps(agreement.aged(to: instant, tolerancePPM: tolerancePPM))
            if !overlaps {
                rejected[candidate.index] = .falseticker(
                    "outside the interval the signed Roughtime time proves")
            }
        }
        return rejected
    }
}
