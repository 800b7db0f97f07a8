import TimeValues

/// The English day and month names of HTTP-dates.
enum HTTPDateNames {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let shortDays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// Whether `name` is a short or long day name, ignoring case.
    static func isDayName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return shortDays.contains { $0.lowercased() == lowered }
            || longDays.contains { $0.lowercased() == lowered }
    }

    /// The month number 1–12 of a three-letter month name, ignoring case.
    static func monthNumber(_ name: String) -> Int? {
        let lowered = name.lowercased()
        return months.firstIndex { $0.lowercased() == lowered }.map { $0 + 1 }
    }
}

/// A cursor over the bytes of an HTTP-date, with the grammar's small pieces as throwing readers.
/// Every read is bounds-checked, so no input can make it trap.
struct HTTPDateScanner {
    private let bytes: [UInt8]
    private(set) var position: Int

    /// Starts at the first byte of `text` with surrounding spaces and tabs removed.
    init(_ text: String) {
        var bytes = Array(text.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.endIndex
        self.bytes = Array(bytes[start...])
        self.position = 0
    }

    var isAtEnd: Bool { position >= bytes.count }

    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Consumes exactly `character`, or throws naming what was found instead.
    mutating func expect(_ character: Unicode.Scalar) throws(HTTPDateError) {
        let wanted = UInt8(ascii: character)
        guard let byte = peek else {
            throw HTTPDateError(
                .truncated, "the date ends where '\(character)' was expected", position: position)
        }
        guard byte == wanted else {
            throw HTTPDateError(
                .unexpectedCharacter, "expected '\(character)' but found \(Self.show(byte))",
                position: position)
        }
        position += 1
    }

    /// Consumes a run of ASCII letters (possibly empty).
    mutating func letters() -> String {
        let start = position
        while let byte = peek, (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Consumes a three-letter month name and returns its number 1–12.
    mutating func month() throws(HTTPDateError) -> Int {
        let start = position
        let name = letters()
        guard let number = HTTPDateNames.monthNumber(name) else {
            if name.isEmpty && isAtEnd {
                throw HTTPDateError(.truncated, "the date ends where the month was expected", position: start)
            }
            throw HTTPDateError(.invalidMonth, "'\(name)' is not a month name", position: start)
        }
        return number
    }

    /// Consumes exactly `count` ASCII digits.
    mutating func digits(_ count: Int, _ code: HTTPDateError.Code, _ what: String) throws(HTTPDateError)
        -> Int
    {
        try digits(count...count, code, what)
    }

    /// Consumes between `counts.lowerBound` and `counts.upperBound` ASCII digits.
    mutating func digits(_ counts: ClosedRange<Int>, _ code: HTTPDateError.Code, _ what: String)
        throws(HTTPDateError) -> Int
    {
        let start = position
        var value = 0
        while position - start < counts.upperBound, let byte = peek, byte >= 0x30 && byte <= 0x39 {
            value = value * 10 + Int(byte - 0x30)
            position += 1
        }
        let read = position - start
        guard read >= counts.lowerBound else {
            if isAtEnd {
                throw HTTPDateError(.truncated, "the date ends inside the \(what)", position: position)
            }
            let wanted =
                counts.count == 1 ? "\(counts.lowerBound)" : "\(counts.lowerBound)–\(counts.upperBound)"
            throw HTTPDateError(
                code, "the \(what) needs \(wanted) digits, found \(peek.map(Self.show) ?? "the end")",
                position: position)
        }
        return value
    }

    /// Consumes `hh:mm:ss` (ranges are checked later, with the date).
    mutating func timeOfDay() throws(HTTPDateError) -> HTTPDateFields.Clock {
        let hour = try digits(2, .invalidHour, "hour")
        try expect(":")
        let minute = try digits(2, .invalidMinute, "minute")
        try expect(":")
        let second = try digits(2, .invalidSecond, "second")
        return HTTPDateFields.Clock(hour: hour, minute: minute, second: second)
    }

    /// A byte shown for an error message: the character in quotes when printable, else hex.
    static func show(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count < 2 ? "0" : "") + hex
    }
}
