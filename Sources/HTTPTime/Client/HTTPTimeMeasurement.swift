import Foundation
import NetClockTLS
import SNTP

/// The clock offset one ``HTTPTimeSource`` measurement established against one URL, with a sound
/// error bound: when the server's clock is right, the true offset lies in
/// `offset − errorBound … offset + errorBound`.
///
/// ``trueTime`` at ``monotonic`` is an anchor pair ready for a clock: true time was `trueTime`
/// (± `errorBound`) when the monotonic clock the source was given read `monotonic`.
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
    /// True time − local wall time (NTP sign convention), the midpoint of ``offsets``.
    package var offset: Duration
    /// How far the true offset can be from ``offset``: half the width of ``offsets``.
    package var errorBound: Duration
    /// The interval of offsets consistent with every response, aged to ``monotonic``.
    package var offsets: OffsetInterval
    /// The same as times: the true time at ``monotonic`` lies in it.
    package var interval: TrueTimeInterval {
        TrueTimeInterval(offsets: offsets, fromWall: localTime, instant: monotonic)
    }
    /// The best estimate of true time at ``monotonic``.
    package var trueTime: UnixTime
    /// The monotonic instant of the anchor: the receive instant of the last response used.
    package var monotonic: MonotonicInstant
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
        url: URL, kind: Kind, offsets interval: OffsetInterval, monotonic: MonotonicInstant,
        localTime: UnixTime, roundTripDelay: Duration, requests: [HTTPRequestRecord]
    ) {
        self.url = url
        self.kind = kind
        self.offsets = interval
        self.offset = interval.offset
        self.errorBound = interval.bound
        self.trueTime = localTime + interval.offset
        self.monotonic = monotonic
        self.localTime = localTime
        self.roundTripDelay = roundTripDelay
        self.requests = requests
    }
}
