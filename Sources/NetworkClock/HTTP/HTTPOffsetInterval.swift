/// A closed interval that must contain the true clock offset (true time − local wall time, the NTP
/// sign convention), as one HTTP response or the intersection of several establishes it.
public struct HTTPOffsetInterval: Hashable, Sendable, CustomStringConvertible {
    /// The smallest offset consistent with the evidence.
    public let lower: Duration
    /// The largest offset consistent with the evidence.
    public let upper: Duration

    /// Creates an interval; the bounds are swapped if given in the wrong order.
    public init(lower: Duration, upper: Duration) {
        self.lower = min(lower, upper)
        self.upper = max(lower, upper)
    }

    /// The interval a server timestamp gives: the server read `serverTime` (± `resolution`, which
    /// covers truncating, rounding or ceilinging clocks; pass `.zero` for an exact reading, and for a
    /// truncated 1-second `Date` use ``dateHeader(_:sent:received:)``) at some instant between the
    /// local wall times `sent` and `received`.
    public static func timestamp(
        _ serverTime: UnixTime, resolution: Duration, sent: UnixTime, received: UnixTime
    ) -> HTTPOffsetInterval {
        HTTPOffsetInterval(
            lower: (serverTime - resolution) - received, upper: (serverTime + resolution) - sent)
    }

    /// The interval a `Date` header gives: the server's clock read somewhere in `[date, date + 1 s)`
    /// at an instant between the local wall times `sent` and `received`.
    public static func dateHeader(_ date: UnixTime, sent: UnixTime, received: UnixTime)
        -> HTTPOffsetInterval
    {
        HTTPOffsetInterval(lower: date - received, upper: (date + .seconds(1)) - sent)
    }

    /// The centre of the interval: the best single estimate of the offset.
    public var midpoint: Duration { lower + (upper - lower) / 2 }

    /// Half the width: how far the true offset can be from ``midpoint``.
    public var halfWidth: Duration { (upper - lower) / 2 }

    /// The width of the interval.
    public var width: Duration { upper - lower }

    /// Whether `offset` lies inside the interval (bounds included).
    public func contains(_ offset: Duration) -> Bool { lower <= offset && offset <= upper }

    /// The offsets in both intervals, or nil when they are disjoint.
    public func intersection(_ other: HTTPOffsetInterval) -> HTTPOffsetInterval? {
        let low = max(lower, other.lower)
        let high = min(upper, other.upper)
        return low <= high ? HTTPOffsetInterval(lower: low, upper: high) : nil
    }

    /// The interval grown by `amount` on both sides, for example to age it by the local clock's
    /// possible drift.
    public func widened(by amount: Duration) -> HTTPOffsetInterval {
        HTTPOffsetInterval(lower: lower - amount, upper: upper + amount)
    }

    /// `[lower, upper]` in seconds.
    public var description: String { "[\(lower), \(upper)]" }
}
