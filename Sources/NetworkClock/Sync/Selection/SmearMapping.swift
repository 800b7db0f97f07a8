import ClockCore
import TimeValues

/// Maps a smearing server's interval onto POSIX stepping time, which anchors hold, before it is
/// screened and intersected. The smear is the one the big public smearing servers use: linear over
/// 24 h from noon to noon UTC around the leap's midnight, 86,400 + sign SI seconds counting as
/// 86,400. For each leap that may occur (`signs`: +1 inserted, −1 deleted, 0 none) the smeared
/// interval's ends are taken back to linear time (exactly: the smear is a monotone bijection) and
/// then to POSIX time; an interval across the step covers both sides of it, and the result is the
/// hull over every possible sign, so an unknown leap widens it by what the smear might have moved.
struct SmearMapping: Sendable, Hashable {
    /// The UTC midnight ending a month (Unix seconds) around which the smear runs.
    var midnight: Int64
    /// The leaps that may occur at ``midnight``: one sign when known, all three when not.
    var signs: Set<Int64>

    /// One second in attoseconds.
    static let second: Int128 = 1_000_000_000_000_000_000
    /// Half a day in seconds: the smear runs from noon before the midnight to noon after it.
    static let halfDay: Int64 = 43_200

    /// The month-end midnight whose smear window (12 h either side) `interval` reaches; nil when it
    /// reaches none (a smearing server then tells POSIX time and maps to itself).
    static func window(of interval: TrueTimeInterval) -> Int64? {
        let middle = interval.midpoint
        // Beyond any era NTP can carry: no smear, and no arithmetic near the integers' limits.
        guard abs(middle.seconds) < 1 << 40 else { return nil }
        let ends = [
            LeapSchedule.monthStart(atOrBefore: middle.seconds), LeapSchedule.monthEnd(after: middle),
        ]
        return ends.first { midnight in
            interval.latest >= UnixTime(seconds: midnight - halfDay)
                && interval.earliest <= UnixTime(seconds: midnight + halfDay)
        }
    }

    /// `interval` (smeared time) in POSIX stepping time: the hull over ``signs``.
    func map(_ interval: TrueTimeInterval) -> TrueTimeInterval {
        let low = interval.earliest.sinceEpoch.attoseconds
        let high = interval.latest.sinceEpoch.attoseconds
        var lower = Int128.max
        var upper = Int128.min
        for sign in signs.isEmpty ? [0] : signs.sorted() {
            let mapped = Self.posix(low, high, midnight: midnight, sign: sign)
            lower = min(lower, mapped.lower)
            upper = max(upper, mapped.upper)
        }
        return TrueTimeInterval(
            earliest: UnixTime(sinceEpoch: Duration(attoseconds: lower)),
            latest: UnixTime(sinceEpoch: Duration(attoseconds: upper)), instant: interval.instant)
    }

    /// The POSIX interval covering smeared `[low, high]` (attoseconds) under a leap of `sign` at
    /// `midnight`: both ends taken to linear time (the lower rounded down, the upper up), then every
    /// POSIX time between them, both sides of a step the interval straddles.
    static func posix(_ low: Int128, _ high: Int128, midnight: Int64, sign: Int64) -> (
        lower: Int128, upper: Int128
    ) {
        guard sign != 0 else { return (low, high) }
        let s = Int128(sign)
        let linearLow = linear(low, midnight: midnight, sign: s, roundingUp: false)
        let linearHigh = linear(high, midnight: midnight, sign: s, roundingUp: true)
        // Linear time at which POSIX time steps: back at midnight (insert), forward at 23:59:59 (delete).
        let step = Int128(sign > 0 ? midnight : midnight - 1) * second
        let shift = s * second
        if linearHigh < step { return (linearLow, linearHigh) }
        if linearLow >= step { return (linearLow - shift, linearHigh - shift) }
        // Across the step: [low, step) stays, [step, high] moves back by the sign.
        return (min(linearLow, step - shift), max(step, linearHigh - shift))
    }

    /// Linear (SI) time for smeared time `smeared` (attoseconds): the smear's inverse, exact in
    /// integers. Before the smear they agree; within it linear time runs 86,400 + sign to 86,400;
    /// after it linear time is ahead by the sign.
    static func linear(_ smeared: Int128, midnight: Int64, sign: Int128, roundingUp: Bool) -> Int128 {
        let start = Int128(midnight - halfDay) * second
        let end = Int128(midnight + halfDay) * second
        if smeared <= start { return smeared }
        if smeared >= end { return smeared + sign * second }
        let scaled = (smeared - start) * (86_400 + sign)
        var quotient = scaled / 86_400
        if roundingUp && scaled % 86_400 != 0 { quotient += 1 }
        return start + quotient
    }
}
