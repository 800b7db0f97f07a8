import NetClockPlatform

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
