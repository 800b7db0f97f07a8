/// The 32-bit NTP short format: 16 bits of seconds and 16 bits of fraction (RFC 5905 §6), used for
/// root delay and root dispersion. Resolution 2⁻¹⁶ s (about 15 µs), range up to about 18 hours.
package struct NTPShortFormat: Hashable, Sendable {
    /// The 32-bit wire value.
    package var rawValue: UInt32

    /// Creates a value from its 32-bit wire form.
    package init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Zero.
    package static let zero = NTPShortFormat(rawValue: 0)

    /// Encodes a non-negative duration, rounding up to the next 2⁻¹⁶ s (so a bound never shrinks) and
    /// saturating at the largest representable value. Negative durations encode as zero.
    package init(roundingUp duration: Duration) {
        guard duration > .zero else {
            self.rawValue = 0
            return
        }
        let (seconds, atto) = duration.components
        if seconds >= 1 << 16 {
            self.rawValue = .max
            return
        }
        // ceil(atto × 2¹⁶ / 10¹⁸)
        let unit: UInt64 = 1_000_000_000_000_000_000
        let (quotient, remainder) = unit.dividingFullWidth(UInt64(atto).multipliedFullWidth(by: 1 << 16))
        let fraction = quotient + (remainder > 0 ? 1 : 0)
        let raw = UInt64(seconds) << 16 + fraction
        self.rawValue = raw > UInt64(UInt32.max) ? .max : UInt32(raw)
    }

    /// The value as a duration (exact to the nearest attosecond).
    package var duration: Duration {
        let seconds = Int64(rawValue >> 16)
        let fraction = UInt64(rawValue & 0xFFFF) << 16
        return .seconds(seconds) + NTPTimestamp.duration(ofFraction: fraction)
    }
}

/// A power of two in seconds, as NTP encodes precision and poll interval: a signed 8-bit exponent.
package struct Log2Seconds: Hashable, Sendable {
    /// The exponent: the value is 2^`rawValue` seconds.
    package var rawValue: Int8

    /// Creates a value from its exponent.
    package init(rawValue: Int8) {
        self.rawValue = rawValue
    }

    /// The value as a duration, exact for exponents from −63 to 62 to the nearest attosecond.
    package var duration: Duration {
        if rawValue >= 0 {
            return .seconds(Int64(1) << Int64(min(rawValue, 62)))
        }
        let shift = Int(-Int(rawValue))
        guard shift < 64 else { return .zero }
        // 10¹⁸ / 2^shift, rounded up so precision terms never understate an error.
        let unit: UInt64 = 1_000_000_000_000_000_000
        let divisor = UInt64(1) << UInt64(shift)
        let atto = (unit + divisor - 1) / divisor
        return Duration(secondsComponent: 0, attosecondsComponent: Int64(atto))
    }
}
