import Foundation
import LoopbackServers
import NetClockPlatform
import Testing

/// The Foundation-free replacements the shipping modules use (they import only
/// FoundationEssentials): `Double.decimalString(fractionDigits:)` prints what `String(format:
/// "%.Nf")` prints, and `trimmingWhitespace()` trims what `trimmingCharacters(in:
/// .whitespacesAndNewlines)` trims. Foundation is the reference here, in the tests only.
@Suite struct FoundationFreeFormattingTests {
    /// printf's output without the sign of a negative zero (`-0.000`), which the replacement
    /// leaves out on purpose.
    static func printf(_ value: Double, _ digits: Int) -> String {
        let text = String(format: "%.\(digits)f", value)
        return text.hasPrefix("-") && !text.contains(where: { ("1"..."9").contains($0) })
            ? String(text.dropFirst()) : text
    }

    @Test(
        arguments: [
            (1.5, 3, "1.500"), (-0.25, 3, "-0.250"), (0.0004, 3, "0.000"), (-0.0004, 3, "0.000"),
            (59.9964, 3, "59.996"), (8, 6, "8.000000"), (0.1, 0, "0"), (-12.75, 1, "-12.8"),
            (1e-7, 6, "0.000000"), (123_456.000_000_4, 6, "123456.000000"), (.infinity, 3, "inf"),
        ] as [(Double, Int, String)])
    func decimalStringOfKnownValues(value: Double, digits: Int, expected: String) {
        #expect(value.decimalString(fractionDigits: digits) == expected)
    }

    /// 40,000 values over twelve decades, both signs: the same text as printf. (They could differ
    /// only where a value lies exactly halfway between two last digits, which none of these does.)
    @Test func decimalStringMatchesPrintf() {
        var random = SplitMix64(seed: 44)
        var mismatches: [String] = []
        for _ in 0..<10_000 {
            let magnitude = Double.random(in: -6...6, using: &random)
            let value = (Bool.random(using: &random) ? 1 : -1) * Foundation.pow(10, magnitude)
            for digits in [0, 1, 3, 6]
            where value.decimalString(fractionDigits: digits) != Self.printf(value, digits) {
                mismatches.append("\(value) %.\(digits)f: \(value.decimalString(fractionDigits: digits))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func signedDecimalStringShowsThePlusAndNoNegativeZero() {
        #expect(1.5.signedDecimalString(fractionDigits: 3) == "+1.500")
        #expect((-59.9964).signedDecimalString(fractionDigits: 3) == "-59.996")
        #expect((-0.0001).signedDecimalString(fractionDigits: 3) == "+0.000")
        #expect(0.0.signedDecimalString(fractionDigits: 3) == "+0.000")
    }

    @Test(arguments: [
        "", "   ", "abc", " \t abc \r\n", "\u{A0}proxy.example:3128\u{2003}", "a b\tc", "\n\n*\n",
        " \u{85}http://localhost:8080 ",
    ])
    func trimmingWhitespaceTrimsWhatFoundationTrims(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(Substring(text).trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
