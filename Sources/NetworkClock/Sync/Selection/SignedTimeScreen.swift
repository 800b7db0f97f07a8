import TimeBase

/// Roughtime's agreed signed time, when it is among the candidates, as a screen: it is proven by
/// signatures without any certificate or local clock, so an unauthenticated candidate that
/// contradicts it cannot be right, however many agree with it.
struct SignedTimeScreen: CandidateScreen {
    /// The frequency tolerance that carries both intervals to a common instant.
    var tolerancePPM: Double

    func rejections(among candidates: [Candidate]) -> [Int: Rejection] {
        guard let signed = candidates.first(where: { $0.kind == .roughtime })?.interval else { return [:] }
        var rejected: [Int: Rejection] = [:]
        for candidate in candidates where !candidate.isAuthenticated {
            let instant = max(candidate.interval.instant, signed.instant)
            let overlaps = candidate.interval.aged(to: instant, tolerancePPM: tolerancePPM)
                .overlaps(signed.aged(to: instant, tolerancePPM: tolerancePPM))
            if !overlaps {
                rejected[candidate.index] = .falseticker(
                    "outside the interval the signed Roughtime time proves")
            }
        }
        return rejected
    }
}
