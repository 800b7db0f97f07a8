extension Double {
    /// The value with exactly `fractionDigits` digits after the decimal point, rounded half away
    /// from zero: `1.5.decimalString(fractionDigits: 3)` is `1.500`, `-0.0004` with three digits
    /// is `0.000` (no negative zero). What `String(format: "%.3f", value)` prints, without
    /// Foundation (whose `String(format:)` is not in FoundationEssentials); it can differ from
    /// `printf` only in the last digit of an exact tie. Beyond 9e18 in the last digit's units it
    /// falls back to `String(self)`, as it does for infinities and NaN.
    package func decimalString(fractionDigits: Int) -> String {
        var scale = 1.0
        for _ in 0..<max(0, fractionDigits) { scale *= 10 }
        let scaled = (Swift.abs(self) * scale).rounded()
        guard scaled < 9e18 else { return String(self) }
        let whole = Int64(scaled)
        let integer = whole / Int64(scale)
        let fraction = String(whole % Int64(scale))
        let padded = String(repeating: "0", count: Swift.max(0, fractionDigits - fraction.count)) + fraction
        let sign = self < 0 && whole != 0 ? "-" : ""
        return sign + String(integer) + (fractionDigits > 0 ? "." + padded : "")
    }

    /// ``decimalString(fractionDigits:)`` with an explicit sign, as `%+.3f` prints it: `+1.500`,
    /// `-0.250`; a value that rounds to zero is `+0.000`.
    package func signedDecimalString(fractionDigits: Int) -> String {
        let text = decimalString(fractionDigits: fractionDigits)
        return text.hasPrefix("-") ? text : "+" + text
    }
}
