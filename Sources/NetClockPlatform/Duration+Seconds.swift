/// The absolute value of a duration (the standard library has none for `Duration`).
package func abs(_ duration: Duration) -> Duration {
    duration < .zero ? .zero - duration : duration
}

extension Duration {
    /// The duration in seconds as a `Double`, for display and statistics only.
    package var secondsDouble: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }

    /// Creates a duration from a `Double` number of seconds, rounded to the nanosecond;
    /// nil for values that are not finite or are beyond ±292 years.
    package init?(secondsDouble value: Double) {
        guard value.isFinite, abs(value) < 9.2e9 else { return nil }
        let nanoseconds = (value * 1e9).rounded()
        self = .nanoseconds(Int64(nanoseconds))
    }

    /// A short human form such as `12.345ms`, `1.500000s` or `-0.2ms`.
    package var formattedSeconds: String {
        let seconds = secondsDouble
        let magnitude = abs(seconds)
        if magnitude < 1e-3 && magnitude > 0 { return Self.fixed(seconds * 1e6, 1) + "µs" }
        if magnitude < 1 { return Self.fixed(seconds * 1e3, 3) + "ms" }
        return Self.fixed(seconds, 6) + "s"
    }

    /// How far a clock whose rate is off by at most `ppm` parts per million can drift over this
    /// duration: the product rounded up to a whole nanosecond, plus one for the rounding of the
    /// product itself, so that a bound widened by it is never narrower than exact arithmetic would
    /// make it. Zero for a non-positive duration or tolerance. The package's one drift rule.
    package func drift(atPPM ppm: Double) -> Duration {
        guard self > .zero, ppm > 0, ppm.isFinite else { return .zero }
        let (seconds, attoseconds) = components
        let nanoseconds = (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) * ppm / 1e6
        guard nanoseconds < 9e18 else { return .seconds(Int64.max / 2) }
        return .nanoseconds(Int64(nanoseconds.rounded(.up)) + 1)
    }

    /// ``formattedSeconds`` with an explicit sign: `+1.500000s`, `-0.250ms`, `+0.000ms`.
    package var signedFormattedSeconds: String {
        self < .zero ? formattedSeconds : "+" + formattedSeconds
    }

    /// Formats `value` with `digits` digits after the decimal point, without Foundation.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return String(value) }
        let whole = Int64(scaled)
        let integer = whole / Int64(scale)
        let fraction = String(whole % Int64(scale))
        let padded = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
        let sign = value < 0 && whole != 0 ? "-" : ""
        return sign + String(integer) + (digits > 0 ? "." + padded : "")
    }
}
