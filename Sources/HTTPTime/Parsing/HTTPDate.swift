import TimeValues

/// An HTTP-date (RFC 9110 §5.6.7) parsed from a `Date` or similar header field, in any of the three
/// forms recipients must accept (``Format``). The parser is total over the UTF-8 bytes (it never
/// traps) and reads no clock; a leap second `23:59:60` is read as the next day's `00:00:00`. Its
/// leniencies and strict range checks: the ThreatModel article, "A malicious or broken server".
package struct HTTPDate: Hashable, Sendable {
    /// The textual form an HTTP-date was written in.
    package enum Format: String, Hashable, Sendable, CaseIterable {
        /// `Sun, 06 Nov 1994 08:49:37 GMT`.
        case imfFixdate = "imf-fixdate"
        /// `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit year).
        case rfc850 = "rfc850"
        /// `Sun Nov  6 08:49:37 1994`.
        case asctime = "asctime"
    }

    /// The instant named, a whole second in UTC.
    package let time: UnixTime
    /// The form the value was written in.
    package let format: Format

    /// Parses an HTTP-date.
    ///
    /// - Parameters:
    ///   - text: the field value, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///   - referenceYear: the current year, used only for the two-digit years of RFC 850 dates: per
    ///     RFC 9110, a year that would be more than 50 years in the future is taken to be the most
    ///     recent past year with the same last two digits; so the year chosen is the one with those
    ///     digits in `referenceYear − 49 … referenceYear + 50`.
    package init(parsing text: String, referenceYear: Int64) throws(HTTPDateError) {
        var scanner = HTTPDateScanner(text)
        guard !scanner.isAtEnd else { throw HTTPDateError(.empty, "the date is empty") }
        let dayNameStart = scanner.position
        let dayName = scanner.letters()
        guard HTTPDateNames.isDayName(dayName) else {
            throw HTTPDateError(.invalidDayName, "'\(dayName)' is not a day name", position: dayNameStart)
        }
        let fields: HTTPDateFields
        if scanner.peek == UInt8(ascii: ",") {
            try scanner.expect(",")
            try scanner.expect(" ")
            let day = try scanner.digits(2, .invalidDay, "day of the month")
            if scanner.peek == UInt8(ascii: "-") {
                try scanner.expect("-")
                let month = try scanner.month()
                try scanner.expect("-")
                let shortYear = try scanner.digits(2, .invalidYear, "two-digit year")
                let clock = try Self.timeAndZone(&scanner)
                let year = Self.expandTwoDigitYear(shortYear, referenceYear: referenceYear)
                fields = HTTPDateFields(year: year, month: month, day: day, clock: clock)
                format = .rfc850
            } else {
                try scanner.expect(" ")
                let month = try scanner.month()
                try scanner.expect(" ")
                let year = try scanner.digits(4, .invalidYear, "four-digit year")
                let clock = try Self.timeAndZone(&scanner)
                fields = HTTPDateFields(year: Int64(year), month: month, day: day, clock: clock)
                format = .imfFixdate
            }
        } else {
            try scanner.expect(" ")
            let month = try scanner.month()
            try scanner.expect(" ")
            let day: Int
            if scanner.peek == UInt8(ascii: " ") {
                try scanner.expect(" ")
                day = try scanner.digits(1, .invalidDay, "day of the month")
            } else {
                day = try scanner.digits(1...2, .invalidDay, "day of the month")
            }
            try scanner.expect(" ")
            let clock = try scanner.timeOfDay()
            try scanner.expect(" ")
            let year = try scanner.digits(4, .invalidYear, "four-digit year")
            fields = HTTPDateFields(year: Int64(year), month: month, day: day, clock: clock)
            format = .asctime
        }
        guard scanner.isAtEnd else {
            throw HTTPDateError(
                .trailingCharacters, "unexpected text after the date", position: scanner.position)
        }
        time = try fields.validatedTime()
    }

    /// The 4-digit year for an RFC 850 two-digit year, per RFC 9110 §5.6.7.
    static func expandTwoDigitYear(_ twoDigits: Int, referenceYear: Int64) -> Int64 {
        let clampedReference = min(max(referenceYear, -1_000_000_000), 1_000_000_000)
        let century = clampedReference - ((clampedReference % 100) + 100) % 100
        let candidate = century + Int64(twoDigits)
        // The one year with these last two digits in (reference − 50, reference + 50].
        if candidate > clampedReference + 50 { return candidate - 100 }
        if candidate <= clampedReference - 50 { return candidate + 100 }
        return candidate
    }

    private static func timeAndZone(_ scanner: inout HTTPDateScanner) throws(HTTPDateError)
        -> HTTPDateFields.Clock
    {
        try scanner.expect(" ")
        let clock = try scanner.timeOfDay()
        try scanner.expect(" ")
        let zoneStart = scanner.position
        let zone = scanner.letters()
        guard zone.uppercased() == "GMT" else {
            throw HTTPDateError(
                .invalidTimeZone, "the zone must be GMT, not '\(zone)'", position: zoneStart)
        }
        return clock
    }
}

/// The numeric fields of a date, before their ranges are checked.
struct HTTPDateFields {
    struct Clock {
        var hour: Int
        var minute: Int
        var second: Int
    }

    var year: Int64
    var month: Int
    var day: Int
    var clock: Clock

    /// Checks every range and converts to an instant.
    func validatedTime() throws(HTTPDateError) -> UnixTime {
        let length = CivilDate.daysInMonth(year: year, month: month)
        guard (1...length).contains(day) else {
            let name = HTTPDateNames.months[month - 1]
            throw HTTPDateError(.invalidDay, "day \(day) does not exist in \(name) \(year)")
        }
        guard clock.hour <= 23 else {
            throw HTTPDateError(.invalidHour, "hour \(clock.hour) is above 23")
        }
        guard clock.minute <= 59 else {
            throw HTTPDateError(.invalidMinute, "minute \(clock.minute) is above 59")
        }
        let isLeapSecond = clock.second == 60 && clock.hour == 23 && clock.minute == 59
        guard clock.second <= 59 || isLeapSecond else {
            throw HTTPDateError(
                .invalidSecond, "second \(clock.second) is out of range (60 only at 23:59)")
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let secondOfDay = Int64(clock.hour * 3600 + clock.minute * 60 + clock.second)
        return UnixTime(seconds: days * 86_400 + secondOfDay)
    }
}
