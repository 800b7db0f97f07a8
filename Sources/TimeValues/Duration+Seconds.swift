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
        if magnitude < 1e-3 && magnitude > 0 {
            return (seconds * 1e6).decimalString(fractionDigits: 1) + "µs"
        }
        if magnitude < 1 { return (seconds * 1e3).decimalString(fractionDigits: 3) + "ms" }
        return seconds.decimalString(fractionDigits: 6) + "s"
    }

    /// ``formattedSeconds`` with an explicit sign: `+1.500000s`, `-0.250ms`, `+0.000ms`.
    package var signedFormattedSeconds: String {
        self < .zero ? formattedSeconds : "+" + formattedSeconds
    }
}
