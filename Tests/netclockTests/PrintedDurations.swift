import Testing

/// Reads the durations `netclock` prints in its text output (`formattedSeconds`: `+1.500076s`,
/// `+999.951ms`, `-40.012ms`, `228.5µs`), so tests compare values instead of string prefixes: an
/// offset a few microseconds under one second prints as `+999.9…ms`, not `+0.99…s`.
enum PrintedDuration {
    /// The value in seconds of a printed duration, or nil if `text` is not one.
    static func seconds(_ text: Substring) -> Double? {
        for (unit, scale) in [("µs", 1e-6), ("ms", 1e-3), ("s", 1.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }

    /// The duration printed after `label` (e.g. `"offset"`, `"delay"`) in a line of the form
    /// `… label VALUE …`, in seconds.
    static func seconds(after label: String, in line: Substring) -> Double? {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(of: Substring(label)), index + 1 < words.count else { return nil }
        return seconds(words[index + 1])
    }

    /// The error bound printed as `±VALUE` in `line`, in seconds.
    static func bound(in line: Substring) -> Double? {
        line.split(separator: " ").first { $0.hasPrefix("±") }.flatMap { seconds($0.dropFirst()) }
    }

    /// What a printed sample may add to the physical bound |offset − truth| ≤ delay / 2: 10 µs for
    /// the 2⁻³² s timestamp resolution and the client's per-burst wall-clock mapping (as in
    /// FaultInjectionTests), and 1 µs for the rounding of the two printed numbers.
    static let sampleTolerance = 11e-6
}
