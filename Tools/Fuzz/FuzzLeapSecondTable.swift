// libFuzzer target: the leap-second table parser (IERS/NIST leap-seconds.list, as tzdata installs
// it) and the SHA-1 it checks.
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform and TimeBase
// compiled for fuzzing; it uses their `package` API. Not part of the Swift package.
//
// The input bytes, decoded as UTF-8 (invalid sequences become U+FFFD), are parsed. Whatever parses
// must satisfy the invariants below; every violation calls `fatalError` with a message, which
// libFuzzer reports as a crash. Rejections are fine: what matters is that no input traps.

import TimeValues

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzLeapSecondTable invariant violated: \(message())")
    }
}

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLeapSecondTable(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    require(SHA1.digest(Array(bytes)).count == 20, "SHA-1 digest is not 20 bytes")
    let text = String(decoding: bytes, as: UTF8.self)
    guard let table = try? LeapSecondTable(parsing: text) else { return 0 }
    require(!table.entries.isEmpty, "a table without entries was accepted")
    for (previous, next) in zip(table.entries, table.entries.dropFirst()) {
        require(previous.start < next.start, "entries not increasing")
        require(abs(next.taiMinusUTC - previous.taiMinusUTC) == 1, "a step that is not 1 s")
    }
    for entry in table.entries {
        require(entry.start.seconds % 86_400 == 0, "an entry not at a UTC midnight")
        if let sign = table.leap(endingAt: entry.start.seconds) {
            require(sign == 0 || abs(sign) == 1, "a leap of \(sign) s")
        }
    }
    require(table.expires > table.entries[table.entries.count - 1].start, "expiry before the last entry")
    if let next = table.nextLeap(after: table.entries[0].start) {
        require(abs(next.sign) == 1, "next leap of \(next.sign) s")
    }
    // Re-parsing the same text gives the same table.
    require((try? LeapSecondTable(parsing: text)) == table, "parsing is not deterministic")
    return 0
}
