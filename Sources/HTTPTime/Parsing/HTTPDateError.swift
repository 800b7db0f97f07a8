import NetClockPlatform
import TimeValues

/// Why an HTTP-date (RFC 9110 §5.6.7) could not be parsed.
///
/// Compare ``code`` in code and tests; ``reason`` is for people and may change wording.
package struct HTTPDateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of problem.
    package enum Code: String, ErrorCode, CaseIterable {
        /// The value is empty or only whitespace.
        case empty = "empty"
        /// The value ended before the date was complete.
        case truncated = "truncated"
        /// A character that the grammar does not allow at that position.
        case unexpectedCharacter = "unexpected_character"
        /// The day name is not one of `Mon`…`Sun` / `Monday`…`Sunday`.
        case invalidDayName = "invalid_day_name"
        /// The month name is not one of `Jan`…`Dec`.
        case invalidMonth = "invalid_month"
        /// The day of the month is 0 or past the end of that month.
        case invalidDay = "invalid_day"
        /// The year is not a valid number of the required digits.
        case invalidYear = "invalid_year"
        /// The hour is above 23.
        case invalidHour = "invalid_hour"
        /// The minute is above 59.
        case invalidMinute = "invalid_minute"
        /// The second is above 59, or 60 anywhere but 23:59 (where leap seconds occur).
        case invalidSecond = "invalid_second"
        /// The zone is not `GMT`.
        case invalidTimeZone = "invalid_time_zone"
        /// Characters follow a complete date.
        case trailingCharacters = "trailing_characters"
    }

    /// The kind of problem.
    package let code: Code
    /// A readable explanation naming the offending part.
    package let reason: String
    /// The byte offset in the (whitespace-trimmed) value where the problem was found, when known.
    package let position: Int?

    /// Creates an error with a code, a reason and optionally the byte offset of the problem.
    package init(_ code: Code, _ reason: String, position: Int? = nil) {
        self.code = code
        self.reason = reason
        self.position = position
    }

    /// `code: reason`, with the position when known.
    package var description: String {
        let at = position.map { " (at byte \($0))" } ?? ""
        return "\(code): \(reason)\(at)"
    }
}
