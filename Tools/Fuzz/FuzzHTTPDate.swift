// libFuzzer target: the HTTP-date parser (RFC 9110 §5.6.7) and the epoch timestamp header parser.
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform, SNTP,
// NetClockTLS and HTTPTime compiled for fuzzing; it uses their `package` API. Not part of the
// Swift package.
//
// The input bytes, decoded as UTF-8 (invalid sequences become U+FFFD), are given to every parse
// entry point. Whatever parses must satisfy the invariants below; every violation calls
// `fatalError` with a message, which libFuzzer reports as a crash.

import HTTPTime
import TimeValues

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzHTTPDate invariant violated: \(message())")
    }
}

/// Reference years for RFC 850 two-digit years: ordinary ones, window edges and extremes.
private let fixedReferenceYears: [Int64] = [
    2026, 1994, 2049, 2050, 2099, 2100, 0, -1, 9999, 1_000_000_000, -1_000_000_001, .max, .min,
]

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let text = String(decoding: bytes, as: UTF8.self)
    // One more reference year taken from the input itself (FNV-1a), so any Int64 can occur.
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    for referenceYear in fixedReferenceYears + [Int64(bitPattern: hash)] {
        checkDate(text, referenceYear: referenceYear)
    }
    for unit in HTTPTimestampHeader.Unit.allCases {
        checkTimestamp(text, unit: unit)
    }
    return 0
}

// MARK: - HTTP-date

private let shortDays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
private let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
private let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

private func pad(_ value: Int64, _ width: Int, with filler: Character = "0") -> String {
    let digits = String(value)
    return String(repeating: filler, count: max(0, width - digits.count)) + digits
}

/// The calendar fields of a whole-second instant, computed independently of the parser.
private struct Civil {
    var year: Int64
    var month: Int
    var day: Int
    var weekday: Int
    var hour: Int64
    var minute: Int64
    var second: Int64

    init(_ time: UnixTime) {
        let seconds = time.seconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        (year, month, day) = CivilDate.fromDays(days)
        weekday = Int(((days % 7) + 7 + 4) % 7)  // 1970-01-01 was a Thursday (Sunday = 0).
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    var clock: String { pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) }

    var imfFixdate: String {
        "\(shortDays[weekday]), \(pad(Int64(day), 2)) \(monthNames[month - 1]) \(pad(year, 4)) \(clock) GMT"
    }

    var rfc850: String {
        let twoDigits = ((year % 100) + 100) % 100
        return
            "\(longDays[weekday]), \(pad(Int64(day), 2))-\(monthNames[month - 1])-\(pad(twoDigits, 2)) \(clock) GMT"
    }

    var asctime: String {
        "\(shortDays[weekday]) \(monthNames[month - 1]) \(pad(Int64(day), 2, with: " ")) \(clock) \(pad(year, 4))"
    }
}

private func checkDate(_ text: String, referenceYear: Int64) {
    let date: HTTPDate
    do {
        date = try HTTPDate(parsing: text, referenceYear: referenceYear)
    } catch {
        _ = error.description
        if let position = error.position {
            require(
                position >= 0 && position <= text.utf8.count, "error position \(position) outside the text")
        }
        return
    }
    let time = date.time
    require(time.attoseconds == 0, "\(text.debugDescription) parsed to a fraction of a second")
    let civil = Civil(time)
    require((1...12).contains(civil.month) && (1...31).contains(civil.day), "fields out of range")

    // The year is where the format says it must be; a leap second 23:59:60 on 31 December reads
    // as midnight on 1 January of the next year, so that instant may be one year later.
    let clamped = min(max(referenceYear, -1_000_000_000), 1_000_000_000)
    let isNewYear =
        civil.month == 1 && civil.day == 1 && civil.hour == 0 && civil.minute == 0
        && civil.second == 0
    let years = isNewYear ? [civil.year, civil.year - 1] : [civil.year]
    switch date.format {
    case .imfFixdate, .asctime:
        require(years.contains { (0...9999).contains($0) }, "four-digit year parsed to \(civil.year)")
    case .rfc850:
        require(
            years.contains { $0 > clamped - 50 && $0 <= clamped + 50 },
            "two-digit year parsed to \(civil.year) for reference year \(referenceYear)")
    }

    // The instant, written back in the input's own format, reproduces the input: every field was
    // read as written and range-checked (a minute 60 or a 30 February would come back different).
    // Only the day name (any, unchecked), letter case, surrounding whitespace and the asctime day
    // padding may differ.
    let input = lowercasedASCII(trimmedBytes(text))
    let rest = input.drop { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }
    let renderings = canonicalRenderings(time, format: date.format)
    require(
        renderings.contains { lowercasedASCII($0.utf8) == Array(rest) },
        "\(text.debugDescription) parsed to \(time) as \(date.format), written back as \(renderings)")

    // Surrounding spaces and tabs are ignored.
    let padded = try? HTTPDate(parsing: " \t" + text + "\t ", referenceYear: referenceYear)
    require(padded == date, "\(text.debugDescription) parsed differently with surrounding whitespace")

    // Written back in each of the three forms, the instant parses to itself.
    guard (0...9999).contains(civil.year) else { return }
    let forms: [(String, HTTPDate.Format, Int64)] = [
        (civil.imfFixdate, .imfFixdate, referenceYear),
        (civil.rfc850, .rfc850, civil.year),
        (civil.asctime, .asctime, referenceYear),
    ]
    for (written, format, reference) in forms {
        do {
            let again = try HTTPDate(parsing: written, referenceYear: reference)
            require(again.format == format, "\(written.debugDescription) parsed as \(again.format)")
            require(
                again.time == time,
                "\(text.debugDescription) -> \(time) -> \(written.debugDescription) -> \(again.time)")
        } catch {
            require(false, "\(text.debugDescription) -> \(written.debugDescription) does not parse: \(error)")
        }
    }
    // Matching names is case-insensitive.
    let upper = try? HTTPDate(parsing: civil.imfFixdate.uppercased(), referenceYear: referenceYear)
    require(upper?.time == time, "the upper-cased IMF-fixdate of \(time) does not parse to it")
    // What the client does with a Date header next must not trap either.
    _ = time.description
    let sent = MonotonicInstant(sinceOrigin: .seconds(1_000))
    let interval = TrueTimeInterval(
        serverRead: time, time + .seconds(1), sent: sent, received: sent + .seconds(1), tolerancePPM: 15)
    require(interval.earliest <= interval.latest, "empty interval \(interval)")
}

/// The ways `time` can be written after the day name in `format`: the plain one, and for midnight
/// the leap second 23:59:60 of the day before; for asctime, each padding of the day.
private func canonicalRenderings(_ time: UnixTime, format: HTTPDate.Format) -> [String] {
    var variants: [(Civil, String)] = []
    let civil = Civil(time)
    variants.append((civil, civil.clock))
    let before = Civil(time - .seconds(1))
    if before.clock == "23:59:59" {
        variants.append((before, "23:59:60"))
    }
    var renderings: [String] = []
    for (fields, clock) in variants {
        let month = monthNames[fields.month - 1]
        let day = Int64(fields.day)
        switch format {
        case .imfFixdate:
            renderings.append(", \(pad(day, 2)) \(month) \(pad(fields.year, 4)) \(clock) GMT")
        case .rfc850:
            let twoDigits = ((fields.year % 100) + 100) % 100
            renderings.append(", \(pad(day, 2))-\(month)-\(pad(twoDigits, 2)) \(clock) GMT")
        case .asctime:
            for written in Set([pad(day, 2, with: " "), pad(day, 2), String(day)]) {
                renderings.append(" \(month) \(written) \(clock) \(pad(fields.year, 4))")
            }
        }
    }
    return renderings
}

private func lowercasedASCII(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}

// MARK: - Timestamp header

private func checkTimestamp(_ text: String, unit: HTTPTimestampHeader.Unit) {
    let header = HTTPTimestampHeader(name: "X-Fuzz-Time", unit: unit)
    let trimmed = trimmedBytes(text)
    let reading: HTTPTimestampHeader.Reading
    do {
        reading = try header.parse(text)
    } catch {
        _ = error.description
        // An integer unit accepts every plain run of digits that fits in an Int64.
        if !trimmed.isEmpty, trimmed.allSatisfy(isDigit),
            Int64(String(decoding: trimmed, as: UTF8.self)) != nil
        {
            require(false, "\(text.debugDescription) in \(unit) rejected: \(error)")
        }
        return
    }
    require(reading.time.sinceEpoch >= .zero, "\(text.debugDescription) parsed before the epoch")
    require(
        reading.resolution > .zero && reading.resolution <= unit.step,
        "resolution \(reading.resolution) for \(unit)")
    let dot = trimmed.firstIndex(of: UInt8(ascii: "."))
    let integerText = String(decoding: trimmed[..<(dot ?? trimmed.endIndex)], as: UTF8.self)
    guard let whole = Int64(integerText), integerText.utf8.allSatisfy(isDigit) else {
        require(false, "\(text.debugDescription) accepted, but its integer part is not an Int64")
        return
    }
    var expected = unit.step * whole
    if let dot {
        require(unit == .seconds, "a fraction accepted in \(unit)")
        let fraction = trimmed[(dot + 1)...]
        require(
            !fraction.isEmpty && fraction.count <= 9 && fraction.allSatisfy(isDigit),
            "fraction of \(text.debugDescription) accepted")
        var nanoseconds: Int64 = 0
        for index in 0..<9 {
            let digit = index < fraction.count ? Int64(fraction[fraction.startIndex + index] - 0x30) : 0
            nanoseconds = nanoseconds * 10 + digit
        }
        expected += .nanoseconds(nanoseconds)
        var resolution = Duration.seconds(1)
        for _ in 0..<fraction.count { resolution = resolution / 10 }
        require(
            reading.resolution == resolution, "resolution \(reading.resolution) for \(fraction.count) digits")
    } else {
        require(reading.resolution == unit.step, "resolution \(reading.resolution) for an integer")
    }
    require(
        reading.time.sinceEpoch == expected,
        "\(text.debugDescription) in \(unit) parsed to \(reading.time.sinceEpoch), not \(expected)")
    // What the client does with the reading next must not trap either.
    _ = reading.time.description
    let sent = MonotonicInstant(sinceOrigin: .seconds(1_000))
    let interval = TrueTimeInterval(
        serverRead: reading.time - reading.resolution, reading.time + reading.resolution, sent: sent,
        received: sent + .seconds(1), tolerancePPM: 15)
    require(interval.earliest <= interval.latest, "empty interval \(interval)")
    _ = interval.midpoint
    _ = interval.radius
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

/// The UTF-8 bytes of `text` without leading and trailing spaces and tabs.
private func trimmedBytes(_ text: String) -> ArraySlice<UInt8> {
    let bytes = Array(text.utf8)
    var end = bytes.endIndex
    while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
    var start = 0
    while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
    return bytes[start..<end]
}
