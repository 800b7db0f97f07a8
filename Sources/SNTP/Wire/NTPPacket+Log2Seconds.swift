extension NTPPacket {
    /// A power of two in seconds, as NTP encodes precision and poll interval: a signed 8-bit exponent.
    public struct Log2Seconds: Hashable, Sendable {
        /// The exponent: the value is 2^`rawValue` seconds.
        public var rawValue: Int8

        /// Creates a value from its exponent.
        public init(rawValue: Int8) {
            self.rawValue = rawValue
        }

        /// The value as a duration, exact for exponents from −63 to 62 to the nearest attosecond.
        public var duration: Duration {
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
}

