extension ServerQueryResult {
    /// The burst's estimate: the intersection of every accepted sample's interval, aged to the latest
    /// sample's receive instant (``BurstIntersection``); or why the samples contradict each other.
    /// Nil without an accepted sample.
    ///
    /// ``best`` (the minimum-delay sample) stays the sample reports show; this is what the source
    /// votes with.
    package var estimate: Result<BurstEstimate, BurstInconsistency>? {
        var requests: [Int] = []
        var accepted: [NTPSample] = []
        for (index, exchange) in exchanges.enumerated() {
            guard let sample = exchange.sample else { continue }
            requests.append(index + 1)
            accepted.append(sample)
        }
        guard let outcome = BurstIntersection.intersect(accepted.map(BurstInterval.init)) else { return nil }
        switch outcome {
        case .conflict(let conflict):
            let (first, second) = (min(conflict.higher, conflict.lower), max(conflict.higher, conflict.lower))
            return .failure(
                BurstInconsistency(
                    firstRequest: requests[first], first: accepted[first], secondRequest: requests[second],
                    second: accepted[second], gap: conflict.gap))
        case .agreement(let bootEpoch, let reference):
            // The latest sample holds at the reference instant; its local receive time turns boot
            // epochs into offsets from the local wall clock there.
            let anchor = accepted.last { $0.receivedAt == reference } ?? accepted[accepted.count - 1]
            let shift = anchor.receivedAt.sinceOrigin - anchor.localReceiveTime.sinceEpoch
            let offset = OffsetInterval(lower: bootEpoch.lower + shift, upper: bootEpoch.upper + shift)
            return .success(
                BurstEstimate(
                    method: accepted.count == 1 ? .minDelay : .intersection, bootEpoch: bootEpoch,
                    reference: reference, offset: offset, sampleCount: accepted.count))
        }
    }
}
