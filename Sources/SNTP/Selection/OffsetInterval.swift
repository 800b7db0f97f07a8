/// A closed interval that must contain the true clock offset (true time − local wall time, the NTP
/// sign convention): what one sample, one HTTP response, or the intersection of several proves.
///
/// The package's one interval type: NTP selection, source combining and HTTP refinement all use it.
package struct OffsetInterval: Hashable, Sendable, CustomStringConvertible {
    /// The smallest offset consistent with the evidence.
    package let lower: Duration
    /// The largest offset consistent with the evidence.
    package let upper: Duration

    /// Creates an interval; the ends are swapped if given in the wrong order.
    package init(lower: Duration, upper: Duration) {
        self.lower = min(lower, upper)
        self.upper = max(lower, upper)
    }

    /// Creates the interval `offset ± bound` (a negative bound counts as zero).
    package init(offset: Duration, bound: Duration) {
        let bound = max(bound, .zero)
        self.init(lower: offset - bound, upper: offset + bound)
    }

    /// The centre: the best single estimate of the offset.
    package var offset: Duration { lower + (upper - lower) / 2 }

    /// Half the width: how far the true offset can be from ``offset``.
    package var bound: Duration { (upper - lower) / 2 }

    /// The width of the interval.
    package var width: Duration { upper - lower }

    /// Whether `offset` lies inside the interval (ends included).
    package func contains(_ offset: Duration) -> Bool { lower <= offset && offset <= upper }

    /// Whether the two intervals share at least one point.
    package func overlaps(_ other: OffsetInterval) -> Bool {
        lower <= other.upper && other.lower <= upper
    }

    /// The offsets in both intervals, or nil when they are disjoint.
    package func intersection(_ other: OffsetInterval) -> OffsetInterval? {
        let low = max(lower, other.lower)
        let high = min(upper, other.upper)
        return low <= high ? OffsetInterval(lower: low, upper: high) : nil
    }

    /// The interval grown by `amount` on both sides, for example to age it by a clock's possible
    /// drift.
    package func widened(by amount: Duration) -> OffsetInterval {
        OffsetInterval(lower: lower - amount, upper: upper + amount)
    }

    /// `[lower, upper]` in seconds.
    package var description: String { "[\(lower), \(upper)]" }
}
