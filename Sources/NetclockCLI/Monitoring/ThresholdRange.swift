/// A threshold range of the Monitoring Plugins development guidelines, `[@]start:end`: a value
/// outside `start...end` alerts (inside it with a leading `@`). `10` is `0:10`, `10:` has no end,
/// `~` as the start has no start: `~:10`.
///
/// Besides single values, a range judges intervals (``alertsThroughout(_:)``,
/// ``alertsNowhere(_:)``): a measured offset with an error bound is an interval of values, any of
/// which may be the true one.
package struct ThresholdRange: Hashable, Sendable, CustomStringConvertible {
    /// The lowest value inside the range (`-infinity` for `~`).
    package var start: Double
    /// The highest value inside the range (`+infinity` when omitted after the colon).
    package var end: Double
    /// Whether values inside the range alert (`@`), instead of those outside it.
    package var alertsInside: Bool
    /// The range as given, for performance data and messages.
    package var description: String

    /// A range from its parts; `description` is how performance data shows it.
    package init(start: Double, end: Double, alertsInside: Bool, description: String) {
        self.start = start
        self.end = end
        self.alertsInside = alertsInside
        self.description = description
    }

    /// Parses `[@]start:end`; nil when `text` is not a range (an empty part where a number is
    /// needed, a non-finite number, `start` above `end`).
    package init?(parsing text: String) {
        var rest = Substring(text)
        alertsInside = rest.first == "@"
        if alertsInside { rest = rest.dropFirst() }
        let startText: Substring
        let endText: Substring
        if let colon = rest.firstIndex(of: ":") {
            startText = rest[..<colon]
            endText = rest[rest.index(after: colon)...]
        } else {
            startText = ""
            endText = rest
            guard !endText.isEmpty else { return nil }
        }
        if startText == "~" {
            start = -.infinity
        } else if startText.isEmpty {
            start = 0
        } else {
            guard let value = Self.number(startText) else { return nil }
            start = value
        }
        if endText.isEmpty {
            end = .infinity
        } else {
            guard let value = Self.number(endText) else { return nil }
            end = value
        }
        guard start <= end else { return nil }
        description = text
    }

    /// A decimal number (`0.5`, `-1`, `1e-3`); not `inf`, `nan` or hexadecimal, which `Double`
    /// would also read.
    private static func number(_ text: Substring) -> Double? {
        let allowed = Set("0123456789.+-eE")
        guard text.allSatisfy(allowed.contains), let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Whether `value` alerts: outside `start...end`, or inside it with `@` (ends included).
    package func alerts(_ value: Double) -> Bool {
        (start...end).contains(value) == alertsInside
    }

    /// Whether every value of `interval` alerts: the proof that the true value alerts.
    package func alertsThroughout(_ interval: ClosedRange<Double>) -> Bool {
        alertsInside ? contains(interval) : isDisjoint(from: interval)
    }

    /// Whether no value of `interval` alerts: the proof that the true value does not.
    package func alertsNowhere(_ interval: ClosedRange<Double>) -> Bool {
        alertsInside ? isDisjoint(from: interval) : contains(interval)
    }

    private func contains(_ interval: ClosedRange<Double>) -> Bool {
        start <= interval.lowerBound && interval.upperBound <= end
    }

    private func isDisjoint(from interval: ClosedRange<Double>) -> Bool {
        interval.upperBound < start || end < interval.lowerBound
    }
}
