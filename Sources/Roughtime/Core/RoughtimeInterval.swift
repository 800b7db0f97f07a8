import NetClockPlatform
import SNTP

/// What valid replies prove about the time: the true time at the local monotonic instant
/// ``reference`` lies in ``earliest`` ... ``latest``.
///
/// ## The bound of one reply
///
/// An honest server guarantees that the true time was within `MIDP ± RADI` when it processed the
/// request (RFC 10049 §5.2.5), at some instant *p* between the request's first transmission *T1*
/// and the reply's arrival *T4* on the local monotonic clock. By *T4* the true time has moved on by
/// *T4 − p*: between 0 and the round trip *δ = T4 − T1*, measured by a clock whose rate is right
/// within the frequency tolerance *φ*. So, with nothing assumed about where in the round trip the
/// server signed:
///
/// ```
/// MIDP − RADI  ≤  true(T4)  ≤  MIDP + RADI + δ·(1 + φ)
/// ```
///
/// a midpoint of `MIDP + δ(1+φ)/2` and a radius of `RADI + δ(1+φ)/2`: never tighter than the
/// signed radius, and wider by half the round trip. Carried to a later instant *R*, the ends move
/// by the elapsed *e = R − T4* and the interval widens by *e·φ* on each side, rounded up (the
/// package's one drift rule, `Duration.drift(atPPM:)`) so that rounding can only make it larger.
package struct RoughtimeInterval: Hashable, Sendable, CustomStringConvertible {
    /// The earliest the true time can be at ``reference``.
    package let earliest: UnixTime
    /// The latest the true time can be at ``reference``.
    package let latest: UnixTime
    /// The local monotonic instant the interval is about.
    package let reference: MonotonicInstant

    /// The interval `earliest...latest` at `reference` (the ends are swapped if given reversed).
    package init(earliest: UnixTime, latest: UnixTime, reference: MonotonicInstant) {
        self.earliest = min(earliest, latest)
        self.latest = max(earliest, latest)
        self.reference = reference
    }

    /// What one valid reply proves at its arrival (the formula above).
    /// - Parameter frequencyTolerance: *φ* as a fraction (15 ppm is `15e-6`).
    package init(_ measurement: RoughtimeMeasurement, frequencyTolerance: Double) {
        let roundTrip = max(measurement.roundTrip, .zero)
        let travelled = roundTrip + roundTrip.drift(atPPM: frequencyTolerance * 1e6)
        let response = measurement.response
        self.init(
            earliest: response.midpoint - response.radius,
            latest: response.midpoint + response.radius + travelled,
            reference: measurement.receivedAt)
    }

    /// The centre of the interval: the best single estimate of the time at ``reference``.
    package var midpoint: UnixTime { earliest + (latest - earliest) / 2 }

    /// Half the width: how far the true time at ``reference`` can be from ``midpoint``.
    package var radius: Duration { (latest - earliest) / 2 }

    /// The same knowledge about a later instant (`instant` before ``reference`` is taken as
    /// ``reference``): both ends move by the elapsed time, and widen by its possible drift.
    package func aged(to instant: MonotonicInstant, frequencyTolerance: Double) -> RoughtimeInterval {
        let elapsed = max(instant - reference, .zero)
        let drift = elapsed.drift(atPPM: frequencyTolerance * 1e6)
        return RoughtimeInterval(
            earliest: earliest + elapsed - drift, latest: latest + elapsed + drift,
            reference: reference + elapsed)
    }

    /// The interval as offsets from a local wall-clock reading `wall` taken at ``reference``
    /// (true time − local time, the NTP sign convention of the rest of the package).
    package func offsets(fromWall wall: UnixTime) -> OffsetInterval {
        OffsetInterval(lower: earliest - wall, upper: latest - wall)
    }

    /// The interval of offsets `offsets` from the wall-clock reading `wall` at `reference`, as times.
    package init(offsets: OffsetInterval, fromWall wall: UnixTime, reference: MonotonicInstant) {
        self.init(earliest: wall + offsets.lower, latest: wall + offsets.upper, reference: reference)
    }

    /// Whether the two intervals (about the same instant) share a point.
    package func overlaps(_ other: RoughtimeInterval) -> Bool {
        earliest <= other.latest && other.earliest <= latest
    }

    /// `midpoint ± radius`, e.g. `2026-03-01T12:00:00.000Z ± 3.000512s`.
    package var description: String {
        "\(ISO8601.format(midpoint, fractionDigits: 3)) ± \(radius.formattedSeconds)"
    }
}
