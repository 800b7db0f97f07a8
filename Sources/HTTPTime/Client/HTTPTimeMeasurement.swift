#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockTLS
import TimeValues

/// The clock offset one ``HTTPTimeClient`` measurement established against one URL, with a sound
/// error bound: when the server's clock is right, the true offset lies in
/// `offset − errorBound … offset + errorBound`.
///
/// ``trueTime`` at ``monotonic`` is an anchor pair ready for a clock: true time was `trueTime`
/// (± `errorBound`) when the monotonic clock the client was given read `monotonic`.
package struct HTTPTimeMeasurement: Sendable {
    /// Which header the server's time came from.
    package enum Kind: Hashable, Sendable {
        /// A timestamp header with the given name (millisecond or finer resolution).
        case timestampHeader(String)
        /// The standard 1-second `Date` header, refined by timing requests.
        case dateHeader
    }

    /// The URL measured.
    package var url: URL
    /// How the server's time was read.
    package var kind: Kind
    /// True time − local wall time (NTP sign convention), at the midpoint of ``interval``.
    package var offset: Duration { interval.midpoint - localTime }
    /// How far the true time can be from ``trueTime``: half the width of ``interval``.
    package var errorBound: Duration { interval.radius }
    /// The times consistent with every response, at ``monotonic``.
    package var interval: TrueTimeInterval
    /// The same as offsets from the local wall clock at ``monotonic``.
    package var offsets: ClosedRange<Duration> { interval.offsets(fromWall: localTime) }
    /// The best estimate of true time at ``monotonic``.
    package var trueTime: UnixTime { interval.midpoint }
    /// The monotonic instant of the anchor: the receive instant of the last response used.
    package var monotonic: MonotonicInstant { interval.instant }
    /// The local wall time at ``monotonic`` (per the measurement's one wall/monotonic pair).
    package var localTime: UnixTime
    /// The shortest round trip among the requests that gave a time.
    package var roundTripDelay: Duration
    /// Every request made, in order, including a refused `HEAD`.
    package var requests: [HTTPRequestRecord]
    /// For `https://`: the time the server's certificates were checked against.
    package var certificateTime: CertificateTime?
    /// For `https://`: the validity periods of the server's verified chain (its last handshake's),
    /// leaf first.
    package var certificateChain: [CertificateValidity] = []

    /// Creates a measurement.
    package init(
        url: URL, kind: Kind, interval: TrueTimeInterval, localTime: UnixTime, roundTripDelay: Duration,
        requests: [HTTPRequestRecord]
    ) {
        self.url = url
        self.kind = kind
        self.interval = interval
        self.localTime = localTime
        self.roundTripDelay = roundTripDelay
        self.requests = requests
    }
}
