extension NTPPacket {
    /// The 32-bit NTP short format: 16 bits of seconds and 16 bits of fraction (RFC 5905 §6), used for
    /// root delay and root dispersion. Resolution 2⁻¹⁶ s (about 15 µs), range up to about 18 hours.
    public struct ShortFormat: Hashable, Sendable {
        /// The 32-bit wire value.
        public var rawValue: UInt32

        /// Creates a value from its 32-bit wire form.
        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        /// Zero.
        public static let zero = ShortFormat(rawValue: 0)

        /// Encodes a non-negative duration, rounding up to the next 2⁻¹⁶ s (so a bound never shrinks) and
        /// saturating at the largest representable value. Negative durations encode as zero.
        public init(roundingUp duration: Duration) {
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
        public var duration: Duration {
            let seconds = Int64(rawValue >> 16)
            let fraction = UInt64(rawValue & 0xFFFF) << 16
            return .seconds(seconds) + NTPTimestamp.duration(ofFraction: fraction)
        }
    }
}

