/// What evidence proves about the time: the true time at the local monotonic instant ``instant``
/// lies in ``earliest`` ... ``latest``.
///
/// The package's one interval type: a Roughtime reply, a held anchor and the sources a sync
/// combines each yield one. Carried to another instant, both ends move by the elapsed monotonic
/// time and the interval widens by the local clock's possible drift over it (the one drift rule,
/// `Duration.drift(atPPM:)`), so knowledge from different instants can be intersected.
package struct TrueTimeInterval: Hashable, Sendable, CustomStringConvertible {
    /// The earliest the true time can be at ``instant``.
    package let earliest: UnixTime
    /// The latest the true time can be at ``instant``.
    package let latest: UnixTime
    /// The local monotonic instant the interval is about.
    package let instant: MonotonicInstant

    /// The interval `earliest...latest` at `instant` (the ends are swapped if given reversed).
    package init(earliest: UnixTime, latest: UnixTime, instant: MonotonicInstant) {
        self.earliest = min(earliest, latest)
        self.latest = max(earliest, latest)
        self.instant = instant
    }

    /// The interval `time ± bound` at `instant` (a negative bound counts as zero).
    package init(time: UnixTime, bound: Duration, instant: MonotonicInstant) {
        let bound = max(bound, .zero)
        self.init(earliest: time - bound, latest: time + bound, instant: instant)
    }

    /// What a server's clock reading proves: it read `earliest...latest` (a signed radius, its
    /// resolution or a whole `Date` second) at some instant between the request's departure `sent`
    /// and the reply's arrival `received`, so the true time at `received` lies between `earliest`
    /// and `latest` plus the round trip δ as the local clock, within `tolerancePPM`, can have
    /// measured it: δ·(1 + φ).
    package init(
        serverRead earliest: UnixTime, _ latest: UnixTime, sent: MonotonicInstant, received: MonotonicInstant,
        tolerancePPM: Double
    ) {
        let roundTrip = max(received - sent, .zero)
        self.init(
            earliest: earliest, latest: latest + roundTrip + roundTrip.drift(atPPM: tolerancePPM),
            instant: received)
    }

    /// What a server's timestamp `time`, written to `resolution`, proves: the one rule for every
    /// timestamp whose rounding is not known (the HTTP(S) fallback's timestamp headers, an app's
    /// ingested responses). A clock that truncates read in `[time, time + resolution)`, one that
    /// rounds within half of it either side, one that takes the ceiling in `(time − resolution,
    /// time]`: `time ± resolution` holds for all three. The rest is
    /// ``init(serverRead:_:sent:received:tolerancePPM:)``. (An HTTP `Date` is the one timestamp
    /// whose truncation is known: it is formatted from the clock's whole seconds.)
    package init(
        serverTimestamp time: UnixTime, resolution: Duration, sent: MonotonicInstant,
        received: MonotonicInstant,
        tolerancePPM: Double
    ) {
        let resolution = max(resolution, .zero)
        self.init(
            serverRead: time - resolution, time + resolution, sent: sent, received: received,
            tolerancePPM: tolerancePPM)
    }

    /// The centre: the best single estimate of the time at ``instant``.
    package var midpoint: UnixTime { earliest + (latest - earliest) / 2 }

    /// Half the width: how far the true time at ``instant`` can be from ``midpoint``.
    package var radius: Duration { (latest - earliest) / 2 }

    /// The same knowledge about another instant: both ends move by the elapsed monotonic time, and
    /// the interval widens on each side by the drift a clock within `tolerancePPM` can accumulate
    /// over it (in either direction).
    package func aged(to other: MonotonicInstant, tolerancePPM: Double) -> TrueTimeInterval {
        let elapsed = other - instant
        let drift = abs(elapsed).drift(atPPM: tolerancePPM)
        return TrueTimeInterval(
            earliest: earliest + elapsed - drift, latest: latest + elapsed + drift, instant: other)
    }

    /// Whether the two intervals (about the same instant) share a point.
    package func overlaps(_ other: TrueTimeInterval) -> Bool {
        earliest <= other.latest && other.earliest <= latest
    }

    /// The times in both intervals (about the same instant), or nil when they are disjoint.
    package func intersection(_ other: TrueTimeInterval) -> TrueTimeInterval? {
        guard overlaps(other) else { return nil }
        return TrueTimeInterval(
            earliest: max(earliest, other.earliest), latest: min(latest, other.latest), instant: instant)
    }

    /// The times of this interval not before `floor` (a time the true time was proven to have
    /// passed), or nil when the whole interval lies before it: the one floor rule, which the
    /// selection's screen and `netclock set`'s decision both apply.
    package func notBefore(_ floor: UnixTime) -> TrueTimeInterval? {
        guard latest >= floor else { return nil }
        return TrueTimeInterval(earliest: max(earliest, floor), latest: latest, instant: instant)
    }

    /// Whether this interval lies inside `other` (both about the same instant).
    package func isInside(_ other: TrueTimeInterval) -> Bool {
        earliest >= other.earliest && latest <= other.latest
    }

    /// The interval as offsets from a local wall-clock reading `wall` taken at ``instant`` (true
    /// time − local time, the NTP sign convention of the rest of the package), for display.
    package func offsets(fromWall wall: UnixTime) -> ClosedRange<Duration> {
        (earliest - wall)...(latest - wall)
    }

    /// `midpoint ± radius`, e.g. `2026-03-01T12:00:00.000Z ± 3.000512s`.
    package var description: String {
        "\(ISO8601.format(midpoint, fractionDigits: 3)) ± \(radius.formattedSeconds)"
    }
}

extension Array where Element == TrueTimeInterval {
    /// Every interval carried to the latest instant among them at `tolerancePPM`: the common
    /// instant ``Intersection`` compares intervals at.
    package func agedToLatest(tolerancePPM: Double) -> [TrueTimeInterval] {
        guard let latest = map(\.instant).max() else { return [] }
        return map { $0.aged(to: latest, tolerancePPM: tolerancePPM) }
    }
}
