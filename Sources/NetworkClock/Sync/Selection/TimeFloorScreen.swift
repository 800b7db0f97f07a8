import TimeValues

/// The time floor (``TimeFloor``) as a screen: the true time was once proven to be at least
/// ``floor``, so a candidate keeps only the part of its interval from the floor on
/// (`TrueTimeInterval.notBefore(_:)`, the one floor rule), one whose whole interval lies before it
/// cannot be right, and one resting on a certificate that expired before it cannot be valid now.
struct TimeFloorScreen: CandidateScreen {
    var floor: UnixTime

    func rejections(among candidates: [Candidate]) -> [Int: Rejection] {
        let shown = ISO8601.format(floor, fractionDigits: 0)
        var rejected: [Int: Rejection] = [:]
        for candidate in candidates {
            if candidate.interval.notBefore(floor) == nil {
                rejected[candidate.index] = .falseticker(
                    "its whole interval lies before the time floor (\(shown)), the least the true time was"
                        + " proven to be")
            } else if let expired = candidate.certificates.first(where: {
                !$0.isValid(somewhereFrom: floor.secondsDouble, to: .infinity)
            }) {
                rejected[candidate.index] = .falseticker(
                    "its certificate \(expired.subject) expired before the time floor (\(shown))")
            }
        }
        return rejected
    }

    func narrowed(_ candidate: Candidate) -> Candidate {
        var narrowed = candidate
        narrowed.interval = candidate.interval.notBefore(floor) ?? candidate.interval
        return narrowed
    }
}
