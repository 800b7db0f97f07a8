import TimeValues

/// What an anchor knows about leap seconds: at most one scheduled leap (an inserted or a deleted
/// second at a UTC midnight ending a month), and up to which instant every other month end is
/// known to have none. Anchors hold POSIX time as stepping servers give it; the clock applies the
/// schedule when it extrapolates across the leap (stepping, or smearing when asked), and widens
/// the bound by 1 s for every month end past ``knownThrough`` (an unknown leap, either sign).
package struct LeapSchedule: Sendable, Hashable {
    /// The Unix second of the UTC midnight at which the scheduled leap ends its day; nil for none.
    package var midnight: Int64?
    /// +1 for an inserted second (the POSIX time repeats one), −1 for a deleted one; 0 for none.
    package var sign: Int64
    /// Whether the anchor's time is already past the scheduled leap (it was applied while aging, or
    /// the time came from after it), so it is not applied again.
    package var applied: Bool
    /// Every month end at or before this Unix second is known: no leap there but the scheduled one;
    /// nil when nothing is known.
    package var knownThrough: Int64?

    /// Nothing known.
    package static let unknown = LeapSchedule(midnight: nil, sign: 0, applied: false, knownThrough: nil)

    /// A schedule from its parts.
    package init(midnight: Int64?, sign: Int64, applied: Bool = false, knownThrough: Int64?) {
        self.midnight = sign == 0 ? nil : midnight
        self.sign = midnight == nil ? 0 : max(-1, min(1, sign))
        self.applied = applied
        self.knownThrough = knownThrough
    }

    /// Seconds in half a day: a smear runs from noon before the leap to noon after it.
    static let halfDay: Int64 = 43_200

    /// The POSIX instant (Unix seconds) at which a stepping clock applies the leap: midnight for an
    /// inserted second (the clock goes back to 23:59:59), 23:59:59 for a deleted one (it jumps to
    /// midnight).
    var stepInstant: Int64? { midnight.map { sign > 0 ? $0 : $0 - 1 } }

    /// Whether the scheduled leap lies between the true times `earlier` and `later`: POSIX time
    /// stepped between them (an inserted second in the repeated 23:59:59 counts as before it).
    package func separates(_ earlier: UnixTime, _ later: UnixTime) -> Bool {
        guard let step = stepInstant else { return false }
        return earlier.seconds < step && later.seconds >= step
    }

    /// What an anchor learns from a server's leap indicator at true time `time`: an announced leap
    /// (`sign` ±1) ends the current UTC month (ntpd and chrony announce for the whole month or its
    /// last day); none (0) covers the current UTC day (RFC 5905: the indicator speaks for the last
    /// minute of the current day).
    package static func announced(sign: Int64, at time: UnixTime) -> LeapSchedule {
        if sign == 0 { return LeapSchedule(midnight: nil, sign: 0, knownThrough: nextMidnight(after: time)) }
        let end = monthEnd(after: time)
        return LeapSchedule(midnight: end, sign: sign, knownThrough: end)
    }

    /// What a valid table says from `time` on: the next leap in it, if any, and no other before
    /// its expiry.
    package static func table(_ table: LeapSecondTable, at time: UnixTime) -> LeapSchedule {
        let expiry = table.expires.seconds - 1
        if let next = table.nextLeap(after: time) {
            return LeapSchedule(midnight: next.midnight, sign: next.sign, knownThrough: expiry)
        }
        return LeapSchedule(midnight: nil, sign: 0, knownThrough: expiry)
    }

    /// This knowledge (an anchor's at true time `time`) together with `other`'s (both trusted):
    /// the later knowledge horizon, and this one's scheduled leap, else `other`'s, applied when
    /// `time` is past its step.
    package func merged(with other: LeapSchedule, at time: UnixTime) -> LeapSchedule {
        var result = self
        if midnight == nil, let midnight = other.midnight, let step = other.stepInstant {
            result = LeapSchedule(
                midnight: midnight, sign: other.sign, applied: time.seconds >= step,
                knownThrough: knownThrough)
        }
        if let a = knownThrough, let b = other.knownThrough {
            result.knownThrough = max(a, b)
        } else {
            result.knownThrough = knownThrough ?? other.knownThrough
        }
        return result
    }

    /// This schedule as seen from an anchor at `time`: a leap more than a smear's half-day in the
    /// past is dropped (nothing left to apply or smear), and month ends before the anchor are known
    /// (its time already includes whatever happened there).
    package func relative(to time: UnixTime) -> LeapSchedule {
        var result = self
        let seconds = time.seconds
        if let midnight, seconds > midnight + Self.halfDay + 2 {
            result.midnight = nil
            result.sign = 0
            result.applied = false
        }
        let before = Self.monthStart(atOrBefore: seconds)
        result.knownThrough = max(knownThrough ?? before, before)
        return result
    }

    /// The UTC midnight after `time` (Unix seconds).
    package static func nextMidnight(after time: UnixTime) -> Int64 {
        let seconds = time.seconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days + 1) * 86_400
    }

    /// The end of the UTC month containing `time`: the first instant of the next month (Unix s).
    package static func monthEnd(after time: UnixTime) -> Int64 {
        monthStart(index: monthIndex(of: time.seconds) + 1)
    }

    /// The start of the month containing Unix second `seconds`.
    package static func monthStart(atOrBefore seconds: Int64) -> Int64 {
        monthStart(index: monthIndex(of: seconds))
    }

    /// Months since year 0 of the month containing Unix second `seconds`.
    static func monthIndex(of seconds: Int64) -> Int64 {
        let date = CivilDate.of(UnixTime(seconds: seconds))
        return date.year * 12 + Int64(date.month - 1)
    }

    /// The first Unix second of month `index` (months since year 0).
    static func monthStart(index: Int64) -> Int64 {
        let year = index >= 0 ? index / 12 : (index - 11) / 12
        let month = Int(index - year * 12) + 1
        return CivilDate.days(year: year, month: month, day: 1) * 86_400
    }
}
