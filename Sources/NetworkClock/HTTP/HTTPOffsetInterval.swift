import SNTP

/// A closed interval that must contain the true clock offset (true time − local wall time, the NTP
/// sign convention), as one HTTP response or the intersection of several establishes it.
package struct HTTPOffsetInterval: Hashable, Sendable, CustomStringConvertible {
    /// The smallest offset consistent with the evidence.
    package let lower: Duration
    /// The largest offset consistent with the evidence.
    package let upper: Duration

    /// Creates an interval; the bounds are swapped if given in the wrong order.
    package init(lower: Duration, upper: Duration) {
        self.lower = min(lower, upper)
        self.upper = max(lower, upper)
    }

    /// The interval a server timestamp gives: the server read `serverTime` (± `resolution`, which
    /// covers truncating, rounding or ceilinging clocks; pass `.zero` for an exact reading, and for a
    /// truncated 1-second `Date` use ``dateHeader(_:sent:received:)``) at some instant between the
    /// local wall times `sent` and `received`.
    package static func timestamp(
        _ serverTime: UnixTime, resolution: Duration, sent: UnixTime, received: UnixTime
    ) -> HTTPOffsetInterval {
        HTTPOffsetInterval(
            lower: (serverTime - resolution) - received, upper: (serverTime + resolution) - sent)
    }

    /// The interval a `Date` header gives: the server's clock read somewhere in `[date, date + 1 s)`
    /// at an instant between the local wall times `sent` and `received`.
    package static func dateHeader(_ date: UnixTime, sent: UnixTime, received: UnixTime)
        -> HTTPOffsetInterval
    {
        HTTPOffsetInterval(lower: date - received, upper: (date + .seconds(1)) - sent)
    }

    /// The centre of the interval: the best single estimate of the offset.
    package var midpoint: Duration { lower + (upper - lower) / 2 }

    /// Half the width: how far the true offset can be from ``midpoint``.
    package var halfWidth: Duration { (upper - lower) / 2 }

    /// The width of the interval.
    package var width: Duration { upper - lower }

    /// Whether `offset` lies inside the interval (bounds included).
    package func contains(_ offset: Duration) -> Bool { lower <= offset && offset <= upper }

    /// The offsets in both intervals, or nil when they are disjoint.
    package func intersection(_ other: HTTPOffsetInterval) -> HTTPOffsetInterval? {
        let low = max(lower, other.lower)
        let high = min(upper, other.upper)
        return low <= high ? HTTPOffsetInterval(lower: low, upper: high) : nil
    }

    /// The interval grown by `amount` on both sides, for example to age it by the local clock's
    /// possible drift.
    package func widened(by amount: Duration) -> HTTPOffsetInterval {
        HTTPOffsetInterval(lower: lower - amount, upper: upper + amount)
    }

    /// `[lower, upper]` in seconds.
    package var description: String { "[\(lower), \(upper)]" }
}
