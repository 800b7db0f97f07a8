/// Conversions between days since the Unix epoch and proleptic Gregorian calendar dates, and an
/// ISO 8601 formatter built on them (no Foundation needed).
package enum CivilDate {
    /// The calendar date of `days` days after 1970-01-01 (negative before it).
    package static func fromDays(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        // Eras of 400 years (146097 days) starting on 0000-03-01.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The number of days from 1970-01-01 to the given date; `month` is 1–12, `day` 1–31.
    package static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date of `time` in UTC and the seconds elapsed in that day (0–86399).
    package static func of(_ time: UnixTime) -> (year: Int64, month: Int, day: Int, secondOfDay: Int64) {
        let seconds = time.seconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = fromDays(days)
        return (year, month, day, seconds - days * 86_400)
    }

    /// The number of days in `month` of `year`.
    package static func daysInMonth(year: Int64, month: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// ISO 8601 / RFC 3339 formatting of ``UnixTime`` in UTC.
package enum ISO8601 {
    /// Formats `time` as `YYYY-MM-DDThh:mm:ss[.fff…]Z` with `fractionDigits` digits (0–9, truncated).
    package static func format(_ time: UnixTime, fractionDigits: Int = 6) -> String {
        let (year, month, day, secondOfDay) = CivilDate.of(time)
        var text = pad(year, 4) + "-" + pad(Int64(month), 2) + "-" + pad(Int64(day), 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":"
        text += pad(secondOfDay % 60, 2)
        let digits = max(0, min(9, fractionDigits))
        if digits > 0 {
            var divisor: Int64 = 1
            for _ in 0..<(9 - digits) { divisor *= 10 }
            text += "." + pad(time.nanoseconds / divisor, digits)
        }
        return text + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
