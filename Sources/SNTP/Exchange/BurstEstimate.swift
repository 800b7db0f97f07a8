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
    /// The boot epochs (true time − monotonic instant) consistent with every sample at ``reference``.
    package var bootEpoch: OffsetInterval
    /// The instant the estimate holds at: the latest accepted sample's receive instant.
    package var reference: MonotonicInstant
    /// The same interval as true time − local wall time at ``reference`` (NTP sign), on the burst's
    /// local time line.
    package var offset: OffsetInterval
    /// How many accepted samples were intersected.
    package var sampleCount: Int
}
