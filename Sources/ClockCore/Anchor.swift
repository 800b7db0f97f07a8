import NetClockPlatform
import TimeValues

/// A point where true time is known against the monotonic clock: "at `monotonic`, the true time was
/// `trueTime`, give or take `errorBound`".
///
/// `monotonic` is an instant of the exchange clock (`CLOCK_BOOTTIME` in production), the clock NTP
/// and HTTP exchanges are stamped with. An ``AnchoredClock`` places it on its time base (the raw
/// oscillator plus suspended time) and extrapolates along that, which neither users nor time
/// daemons can set or slew, so changes to the wall clock never move it.
package struct Anchor: Sendable, Hashable {
    /// The true (server) time at the anchor instant.
    package var trueTime: UnixTime
    /// The monotonic clock's reading at the anchor instant.
    package var monotonic: MonotonicInstant
    /// The maximum error of `trueTime` at the anchor instant; never negative.
    package var errorBound: Duration
    /// Where the time came from.
    package var source: TimeSource
    /// The server that provided the time (`host`, `host:port` or a URL), if known.
    package var server: String?
    /// Whether every source behind the time was authenticated (NTS).
    package var isAuthenticated: Bool
    /// What is known about leap seconds from this anchor on (see ``LeapSchedule``).
    package var leap: LeapSchedule

    /// Creates an anchor: the true time `trueTime`, known within `errorBound`, at monotonic instant
    /// `monotonic`.
    package init(
        trueTime: UnixTime, monotonic: MonotonicInstant, errorBound: Duration, source: TimeSource,
        server: String? = nil, isAuthenticated: Bool = false, leap: LeapSchedule = .unknown
    ) {
        self.leap = leap
        self.trueTime = trueTime
        self.monotonic = monotonic
        self.errorBound = errorBound
        self.source = source
        self.server = server
        self.isAuthenticated = isAuthenticated
    }

    /// Whether the anchor's values are within the ranges ``AnchoredClock`` computes with exactly:
    /// a bound that is not negative and under a year, a monotonic reading within ±146 years, and a
    /// true time within ±34,000 years of the epoch.
    package var isWithinSupportedRange: Bool {
        let year = Duration.seconds(366 * 86_400)
        return errorBound >= .zero && errorBound < year
            && monotonic.sinceOrigin.attoseconds.magnitude < UInt128(1) << 62 * 1_000_000_000
            && trueTime.sinceEpoch.attoseconds.magnitude < UInt128(1) << 40 * 1_000_000_000_000_000_000
    }
}
