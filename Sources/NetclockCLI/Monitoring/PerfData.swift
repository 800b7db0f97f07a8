import NetworkClock

/// One performance datum of the Monitoring Plugins format, `label=value[UOM];warn;crit;min;max`
/// (empty fields kept, so every datum has its four semicolons).
package struct PerfData: Hashable, Sendable, CustomStringConvertible {
    /// The label; quoted in the text when it holds a space, `=` or `'`.
    package var label: String
    /// The value, already formatted.
    package var value: String
    /// The unit (`s`, or empty for a count).
    package var unit: String
    /// The warning range as given, or empty.
    package var warning: String
    /// The critical range as given, or empty.
    package var critical: String
    /// The minimum, or empty.
    package var minimum: String
    /// The maximum, or empty.
    package var maximum: String

    /// Creates a datum.
    package init(
        _ label: String, _ value: String, unit: String = "", warning: String = "", critical: String = "",
        minimum: String = "", maximum: String = ""
    ) {
        self.label = label
        self.value = value
        self.unit = unit
        self.warning = warning
        self.critical = critical
        self.minimum = minimum
        self.maximum = maximum
    }

    /// `label=valueUOM;warn;crit;min;max`.
    package var description: String {
        let needsQuotes = label.contains { $0 == " " || $0 == "=" || $0 == "'" }
        let shown = needsQuotes ? "'" + label.replacing("'", with: "''") + "'" : label
        return "\(shown)=\(value)\(unit);\(warning);\(critical);\(minimum);\(maximum)"
    }

    /// Seconds with six decimals and no trailing zeros: `0.012`, `0.7`, `60`, `-0.000001`.
    package static func seconds(_ value: Double) -> String {
        var text = value.decimalString(fractionDigits: 6)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// ``seconds(_:)`` with an explicit sign: `+0.012`, `-0.7`, `+0`.
    package static func signedSeconds(_ value: Double) -> String {
        let text = seconds(value)
        return text.hasPrefix("-") ? text : "+" + text
    }
}
