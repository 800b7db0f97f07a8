import SNTP

extension OffsetInterval {
    /// The interval a server timestamp gives: the server read `serverTime` (± `resolution`, which
    /// covers truncating, rounding or ceilinging clocks; pass `.zero` for an exact reading, and for a
    /// truncated 1-second `Date` use ``dateHeader(_:sent:received:)``) at some instant between the
    /// local wall times `sent` and `received`.
    package static func timestamp(
        _ serverTime: UnixTime, resolution: Duration, sent: UnixTime, received: UnixTime
    ) -> OffsetInterval {
        OffsetInterval(
            lower: (serverTime - resolution) - received, upper: (serverTime + resolution) - sent)
    }

    /// The interval a `Date` header gives: the server's clock read somewhere in `[date, date + 1 s)`
    /// at an instant between the local wall times `sent` and `received`.
    package static func dateHeader(_ date: UnixTime, sent: UnixTime, received: UnixTime)
        -> OffsetInterval
    {
        OffsetInterval(lower: date - received, upper: (date + .seconds(1)) - sent)
    }
}
