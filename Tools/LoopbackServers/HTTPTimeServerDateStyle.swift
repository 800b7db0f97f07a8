import SNTP
import TimeValues

/// The three HTTP-date forms (RFC 9110 §5.6.7) the loopback server can write in its `Date` header.
package enum HTTPTimeServerDateStyle: String, Hashable, Sendable, CaseIterable {
    /// `Sun, 06 Nov 1994 08:49:37 GMT` — the preferred form.
    case imfFixdate
    /// `Sunday, 06-Nov-94 08:49:37 GMT` — obsolete, two-digit year.
    case rfc850
    /// `Sun Nov  6 08:49:37 1994` — ANSI C `asctime()`, obsolete.
    case asctime

    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    private static let shortDays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDays = [
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    ]

    /// Formats the whole second containing `time` (truncated toward the past) in this style.
    package func format(_ time: UnixTime) -> String {
        let seconds = time.seconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.fromDays(days)
        let weekday = Int(((days + 4) % 7 + 7) % 7)  // 1970-01-01 was a Thursday.
        let clock =
            Self.pad(secondOfDay / 3600, 2) + ":" + Self.pad(secondOfDay / 60 % 60, 2) + ":"
            + Self.pad(secondOfDay % 60, 2)
        let monthName = Self.months[max(0, min(11, month - 1))]
        switch self {
        case .imfFixdate:
            return "\(Self.shortDays[weekday]), \(Self.pad(Int64(day), 2)) \(monthName) "
                + "\(Self.pad(year, 4)) \(clock) GMT"
        case .rfc850:
            let shortYear = ((year % 100) + 100) % 100
            return "\(Self.longDays[weekday]), \(Self.pad(Int64(day), 2))-\(monthName)-"
                + "\(Self.pad(shortYear, 2)) \(clock) GMT"
        case .asctime:
            let paddedDay = day < 10 ? " \(day)" : "\(day)"
            return "\(Self.shortDays[weekday]) \(monthName) \(paddedDay) \(clock) \(Self.pad(year, 4))"
        }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
