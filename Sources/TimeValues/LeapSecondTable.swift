/// A leap-second table in the IERS/NIST `leap-seconds.list` format (the one tzdata installs as
/// `/usr/share/zoneinfo/leap-seconds.list`), parsed totally and checked: its `#h` SHA-1 must match
/// and its steps must be whole seconds at UTC midnights. Whether it is still valid (its `#@`
/// expiry) is the reader's question, asked with ``isValid(at:)``.
///
/// Format: data lines `NTP-seconds TAI−UTC # comment`; `#$` the last update and `#@` the expiry,
/// both NTP seconds; `#h` five groups of hex digits (leading zeros may be dropped in each group), the
/// SHA-1 of the `#$` and `#@` values and the data lines' two fields, concatenated with all
/// whitespace and comments removed. Other `#` lines and blank lines are comments.
package struct LeapSecondTable: Sendable, Hashable {
    /// One line of the table: from `start` (a UTC midnight) on, TAI − UTC is `taiMinusUTC` seconds.
    package struct Entry: Sendable, Hashable {
        package var start: UnixTime
        package var taiMinusUTC: Int64
    }

    /// The table's lines, in increasing order of start.
    package var entries: [Entry]
    /// When the table was last updated (`#$`).
    package var updated: UnixTime
    /// When the table expires (`#@`): it says nothing about leap seconds at or after this instant.
    package var expires: UnixTime

    /// Seconds from 1900-01-01 (NTP's era 0) to 1970-01-01.
    static let ntpToUnix: Int64 = 2_208_988_800

    /// Parses and checks `text`.
    /// - Throws: ``LeapSecondTableError`` when a line is malformed, a field is missing or repeated,
    ///   the steps are not ±1 s at midnights in increasing order, or the hash does not match.
    package init(parsing text: String) throws(LeapSecondTableError) {
        var updatedField: Substring?
        var expiresField: Substring?
        var hashWords: [UInt32]?
        var hashed = ""
        var entries: [Entry] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift: split on it as on "\n".
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            if line.hasPrefix("#$") || line.hasPrefix("#@") {
                let fields = line.dropFirst(2).split(whereSeparator: Self.isSpace)
                guard fields.count == 1, Self.ntpSeconds(fields[0]) != nil else {
                    throw .malformed(line: lineNumber)
                }
                if line.hasPrefix("#$") {
                    guard updatedField == nil else { throw .repeated(line: lineNumber) }
                    updatedField = fields[0]
                } else {
                    guard expiresField == nil else { throw .repeated(line: lineNumber) }
                    expiresField = fields[0]
                }
            } else if line.hasPrefix("#h") {
                guard hashWords == nil else { throw .repeated(line: lineNumber) }
                let groups = line.dropFirst(2).split(whereSeparator: Self.isSpace)
                let words = groups.compactMap { $0.count <= 8 ? UInt32($0, radix: 16) : nil }
                guard groups.count == 5, words.count == 5 else { throw .malformed(line: lineNumber) }
                hashWords = words
            } else if line.hasPrefix("#") {
                continue
            } else {
                let data = line.prefix { $0 != "#" }
                let fields = data.split(whereSeparator: Self.isSpace)
                if fields.isEmpty { continue }
                guard fields.count == 2, let ntp = Self.ntpSeconds(fields[0]),
                    fields[1].allSatisfy(\.isASCIIDigitValue), let offset = Int64(fields[1]), offset < 1 << 31
                else { throw .malformed(line: lineNumber) }
                let start = ntp - Self.ntpToUnix
                guard start % 86_400 == 0 else { throw .notAtMidnight(line: lineNumber) }
                if let last = entries.last {
                    guard start > last.start.seconds, abs(offset - last.taiMinusUTC) == 1 else {
                        throw .badStep(line: lineNumber)
                    }
                }
                entries.append(Entry(start: UnixTime(seconds: start), taiMinusUTC: offset))
                hashed += fields[0] + fields[1]
            }
        }
        guard let updatedField, let updated = Self.ntpSeconds(updatedField) else { throw .missing("#$") }
        guard let expiresField, let expires = Self.ntpSeconds(expiresField) else { throw .missing("#@") }
        guard let hashWords else { throw .missing("#h") }
        guard !entries.isEmpty else { throw .missing("data lines") }
        let digest = SHA1.digest(Array((updatedField + expiresField + hashed).utf8))
        let computed = (0..<5).map { word in
            digest[(4 * word)..<(4 * word + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        guard computed == hashWords else { throw .hashMismatch }
        guard let lastStart = entries.last?.start.seconds, expires - Self.ntpToUnix > lastStart else {
            throw .badStep(line: lineNumber)
        }
        self.entries = entries
        self.updated = UnixTime(seconds: updated - Self.ntpToUnix)
        self.expires = UnixTime(seconds: expires - Self.ntpToUnix)
    }

    /// Whether the table still speaks for instant `instant` (before its expiry).
    package func isValid(at instant: UnixTime) -> Bool { instant < expires }

    /// The leap second at the end of the UTC day that ends at midnight `midnight` (Unix seconds): +1
    /// inserted, −1 deleted, 0 none; nil when the table does not reach that far (at or past expiry).
    package func leap(endingAt midnight: Int64) -> Int64? {
        guard midnight < expires.seconds else { return nil }
        guard let index = entries.firstIndex(where: { $0.start.seconds == midnight }), index > 0 else {
            return 0
        }
        return entries[index].taiMinusUTC - entries[index - 1].taiMinusUTC
    }

    /// The first leap second in the table at a midnight after `instant`, with its sign (+1 inserted,
    /// −1 deleted); nil when there is none before the expiry.
    package func nextLeap(after instant: UnixTime) -> (midnight: Int64, sign: Int64)? {
        for index in entries.indices.dropFirst() where entries[index].start > instant {
            return (entries[index].start.seconds, entries[index].taiMinusUTC - entries[index - 1].taiMinusUTC)
        }
        return nil
    }

    /// A non-negative count of NTP seconds of at most 12 digits, or nil.
    private static func ntpSeconds(_ field: Substring) -> Int64? {
        guard !field.isEmpty, field.count <= 12, field.allSatisfy(\.isASCIIDigitValue) else { return nil }
        return Int64(field)
    }

    private static func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" }
}

extension Character {
    /// Whether the character is one of the ASCII digits 0–9.
    fileprivate var isASCIIDigitValue: Bool { isASCII && isWholeNumber }
}

/// Why a leap-second table was not accepted: the table is then ignored, never trusted.
package enum LeapSecondTableError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A line that is not what the format allows.
    case malformed(line: Int)
    /// A second `#$`, `#@` or `#h` line.
    case repeated(line: Int)
    /// A data line whose instant is not a UTC midnight.
    case notAtMidnight(line: Int)
    /// A data line that is not after the previous one, or whose step is not ±1 s (or an expiry not
    /// after the last line).
    case badStep(line: Int)
    /// A required part is missing (`#$`, `#@`, `#h` or any data line).
    case missing(String)
    /// The `#h` hash does not match the contents: the file is damaged.
    case hashMismatch

    /// A short reason for people.
    package var description: String {
        switch self {
        case .malformed(let line): "malformed line \(line)"
        case .repeated(let line): "repeated header at line \(line)"
        case .notAtMidnight(let line): "line \(line) is not at a UTC midnight"
        case .badStep(let line): "line \(line) is not a 1 s step after the previous one"
        case .missing(let part): "no \(part)"
        case .hashMismatch: "hash does not match (damaged)"
        }
    }
}
