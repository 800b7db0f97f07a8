#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import TimeValues

/// The true time as the clock knows it at one moment: a best estimate and a
/// bound on its error, so that the truth lies in ``earliest``...``latest``.
///
/// An estimate is a small value with no references (the server name is interned), so reading the
/// clock never allocates.
public struct TimeEstimate: Sendable, Hashable {
    /// The best estimate of the true time, in attoseconds since the Unix epoch.
    let timeAttoseconds: Int128
    /// ``errorBound`` in nanoseconds.
    let boundNanoseconds: Int64
    /// ``age`` in nanoseconds.
    let ageNanoseconds: Int64
    /// Bit 1: drift corrected; bit 2: authenticated; bits 8–15: the source's code; bits 32–63: the
    /// interned server name (the published anchor's metadata word, kept as it is so that reading
    /// the clock does not unpack it).
    let metadata: UInt64
    /// The Unix second of ``leap``'s instant (see ``Leap``); bits 16–18 of ``metadata`` hold its
    /// kind and mode.
    let leapSeconds: Int64

    /// The best estimate of the true time, exact to the nanosecond it was computed at.
    public var time: UnixTime { UnixTime(sinceEpoch: Duration(attoseconds: timeAttoseconds)) }
    /// The maximum error of ``time``: the anchor's bound plus its growth since the anchor.
    public var errorBound: Duration { .nanoseconds(boundNanoseconds) }
    /// The time elapsed on the clock's time base since the anchor was taken, suspended time
    /// included (negative only if the anchor's instant lies in the future, which a valid anchor
    /// never does).
    public var age: Duration { .nanoseconds(ageNanoseconds) }
    /// Where the anchor's time came from.
    public var source: TimeSource { TimeSource(code: UInt8(truncatingIfNeeded: metadata >> 8)) }
    /// Whether a measured frequency of the oscillator was applied, rather than only the prior
    /// tolerance.
    public var isDriftCorrected: Bool { metadata & 2 != 0 }
    /// Whether the time is authenticated: every source behind it was an NTS server whose replies
    /// were cryptographically verified (RFC 8915), so no one on the network path could forge it.
    public var isAuthenticated: Bool { metadata & 4 != 0 }
    /// The interned server name.
    var serverIdentifier: UInt32 { UInt32(truncatingIfNeeded: metadata >> 32) }

    /// An estimate from its parts in the form the clock computes them (whole nanoseconds for the
    /// bound and age).
    @inline(__always)
    init(
        timeAttoseconds: Int128, boundNanoseconds: Int64, ageNanoseconds: Int64, metadata: UInt64,
        leapSeconds: Int64 = 0
    ) {
        self.leapSeconds = leapSeconds
        self.timeAttoseconds = timeAttoseconds
        self.boundNanoseconds = boundNanoseconds
        self.ageNanoseconds = ageNanoseconds
        self.metadata = metadata | 1
    }

    /// An estimate from its parts; the bound and age are truncated to whole nanoseconds.
    init(
        time: UnixTime, errorBound: Duration, age: Duration, source: TimeSource, serverIdentifier: UInt32,
        isDriftCorrected: Bool, isAuthenticated: Bool
    ) {
        var bits: UInt64 = 1
        if isDriftCorrected { bits |= 2 }
        if isAuthenticated { bits |= 4 }
        bits |= UInt64(source.code) << 8
        bits |= UInt64(serverIdentifier) << 32
        self.init(
            timeAttoseconds: time.sinceEpoch.attoseconds,
            boundNanoseconds: Int64(truncatingIfNeeded: errorBound.attoseconds / 1_000_000_000),
            ageNanoseconds: Int64(truncatingIfNeeded: age.attoseconds / 1_000_000_000), metadata: bits)
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
    /// the wall clock is behind (the NTP sign convention, `true − local`). A reading taken apart from
    /// the estimate (a thread preempted between the two) shows as offset error: to compare the
    /// clock with the system clock, `NetworkClock.systemClockOffset()` reads both at one instant.
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
