import NetClockPlatform
import TimeValues

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
        guard let outcome = BurstIntersection.intersect(accepted) else { return nil }
        switch outcome {
        case .conflict(let conflict):
            let (first, second) = (min(conflict.higher, conflict.lower), max(conflict.higher, conflict.lower))
            return .failure(
                BurstInconsistency(
                    firstRequest: requests[first], first: accepted[first], secondRequest: requests[second],
                    second: accepted[second], gap: conflict.gap))
        case .agreement(let interval):
            // The latest sample holds at the reference instant; its local receive time is the wall
            // clock's reading there.
            let anchor = accepted.last { $0.receivedAt == interval.instant } ?? accepted[accepted.count - 1]
            return .success(
                BurstEstimate(
                    method: accepted.count == 1 ? .minDelay : .intersection, interval: interval,
                    localTime: anchor.localReceiveTime, sampleCount: accepted.count))
        }
    }
}

/// One source's estimate from one burst: the intersection of every accepted sample's interval (see
/// ``BurstIntersection``), or the single sample's own interval when there is only one.
package struct BurstEstimate: Hashable, Sendable {
    /// How the estimate was formed.
    package enum Method: String, Hashable, Sendable {
        /// The midpoint of the intersection of every accepted sample's interval.
        case intersection
        /// The minimum-delay sample's interval, alone (the burst had one accepted sample).
        case minDelay = "min-delay"
    }

    /// How the estimate was formed.
    package var method: Method
    /// The times consistent with every sample, at the latest accepted sample's receive instant.
    package var interval: TrueTimeInterval
    /// The local wall clock's reading at the interval's instant, on the burst's local time line.
    package var localTime: UnixTime
    /// The interval as true time − local wall time (NTP sign).
    package var offset: ClosedRange<Duration> { interval.offsets(fromWall: localTime) }
    /// How many accepted samples were intersected.
    package var sampleCount: Int
}

/// Two accepted samples of one burst whose intervals cannot both hold: the server stepped its clock
/// or lied within the burst, or the local clock jumped. The source must not vote.
package struct BurstInconsistency: Error, Hashable, Sendable, CustomStringConvertible {
    /// The earlier sample's request number in the burst (1 for the first request sent).
    package var firstRequest: Int
    /// The earlier sample.
    package var first: NTPSample
    /// The later sample's request number in the burst.
    package var secondRequest: Int
    /// The later sample.
    package var second: NTPSample
    /// How far apart their intervals are, once aged to the burst's reference instant.
    package var gap: Duration

    /// E.g. `requests 2 and 3 of the burst contradict each other: offset +1.500012s ±212.0µs vs
    /// +2.500011s ±198.3µs, intervals 999.6ms apart (the server stepped its clock or lied within the
    /// burst, or the local clock jumped)`.
    package var description: String {
        "requests \(firstRequest) and \(secondRequest) of the burst contradict each other: offset "
            + "\(first.offset.signedFormattedSeconds) ±\(first.errorBound.formattedSeconds) vs "
            + "\(second.offset.signedFormattedSeconds) ±\(second.errorBound.formattedSeconds), intervals "
            + "\(gap.formattedSeconds) apart (the server stepped its clock or lied within the burst, "
            + "or the local clock jumped)"
    }
}
