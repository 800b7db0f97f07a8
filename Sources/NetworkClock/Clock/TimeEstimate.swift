import Foundation
import NetClockPlatform
import SNTP

/// The true time as a ``NetworkClock/NetworkClock`` knows it at one moment: a best estimate and a
/// bound on its error, so that the truth lies in ``earliest``...``latest``.
///
/// An estimate is a small value with no references (the server name is interned), so reading the
/// clock never allocates.
public struct TimeEstimate: Sendable, Hashable {
    /// The best estimate of the true time, exact to the nanosecond it was computed at.
    public let time: UnixTime
    /// The maximum error of ``time``: the anchor's bound plus its growth since the anchor.
    public let errorBound: Duration
    /// The monotonic time elapsed since the anchor was taken (negative only if the anchor's instant
    /// lies in the monotonic clock's future, which a valid anchor never does).
    public let age: Duration
    /// Where the anchor's time came from.
    public let source: TimeSource
    /// Whether a measured drift of the monotonic clock was applied, rather than only the tolerance.
    public let isDriftCorrected: Bool
    /// Whether the time is authenticated: every source behind it was an NTS server whose replies
    /// were cryptographically verified (RFC 8915), so no one on the network path could forge it.
    public let isAuthenticated: Bool
    /// The interned server name.
    let serverIdentifier: UInt32

    init(
        time: UnixTime, errorBound: Duration, age: Duration, source: TimeSource, serverIdentifier: UInt32,
        isDriftCorrected: Bool, isAuthenticated: Bool
    ) {
        self.time = time
        self.errorBound = errorBound
        self.age = age
        self.source = source
        self.serverIdentifier = serverIdentifier
        self.isDriftCorrected = isDriftCorrected
        self.isAuthenticated = isAuthenticated
    }

    /// The server that provided the anchor's time, if known.
    public var server: String? { ServerNames.name(for: serverIdentifier) }

    /// ``time`` as a Foundation `Date` (which holds a `Double`, so sub-microsecond digits are lost).
    public var date: Date { Date(timeIntervalSince1970: time.secondsDouble) }

    /// The earliest the true time can be: ``time`` − ``errorBound``.
    public var earliest: UnixTime { time - errorBound }

    /// The latest the true time can be: ``time`` + ``errorBound``.
    public var latest: UnixTime { time + errorBound }

    /// Whether `instant` lies within ``earliest``...``latest``.
    public func contains(_ instant: UnixTime) -> Bool {
        earliest <= instant && instant <= latest
    }

    /// The offset of the true time from a wall-clock reading taken at the same moment: positive when
    /// the wall clock is behind (the NTP sign convention, `true − local`).
    public func offset(from wallClockReading: UnixTime) -> Duration {
        time - wallClockReading
    }

    /// The true time left until `deadline` by the best estimate; negative once it has passed.
    public func timeRemaining(until deadline: UnixTime) -> Duration {
        deadline - time
    }

    /// Whether `deadline` has certainly passed: even the ``earliest`` possible time is at or after it.
    public func hasCertainlyPassed(_ deadline: UnixTime) -> Bool {
        earliest >= deadline
    }

    /// Whether `deadline` is certainly still ahead: even the ``latest`` possible time is before it.
    public func isCertainlyBefore(_ deadline: UnixTime) -> Bool {
        latest < deadline
    }
}
