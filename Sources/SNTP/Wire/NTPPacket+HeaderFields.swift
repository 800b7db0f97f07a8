// The small wire values of the NTP header (RFC 5905 §7.3): open structs with `rawValue` and
// `static let` known values (any bit pattern decodes), as swift-certificates does for versions.

extension NTPPacket {
    /// The leap indicator: a warning of an impending leap second, or that the server is unsynchronised.
    public struct LeapIndicator: RawRepresentable, Hashable, Sendable {
        /// The two-bit wire value (0–3).
        public var rawValue: UInt8

        /// Creates a leap indicator; only the low two bits are kept.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue & 0b11
        }

        /// 0: no warning.
        public static let noWarning = LeapIndicator(rawValue: 0)
        /// 1: the last minute of the day has 61 seconds.
        public static let insertSecond = LeapIndicator(rawValue: 1)
        /// 2: the last minute of the day has 59 seconds.
        public static let deleteSecond = LeapIndicator(rawValue: 2)
        /// 3: alarm — the server's clock is not synchronised.
        public static let alarm = LeapIndicator(rawValue: 3)

        /// A short name: `none`, `insert`, `delete` or `alarm`.
        public var name: String {
            switch rawValue {
            case 0: return "none"
            case 1: return "insert"
            case 2: return "delete"
            default: return "alarm"
            }
        }
    }

    /// The association mode of an NTP packet.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        /// The three-bit wire value (0–7).
        public var rawValue: UInt8

        /// Creates a mode; only the low three bits are kept.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue & 0b111
        }

        /// 0: reserved.
        public static let reserved = Mode(rawValue: 0)
        /// 1: symmetric active.
        public static let symmetricActive = Mode(rawValue: 1)
        /// 2: symmetric passive.
        public static let symmetricPassive = Mode(rawValue: 2)
        /// 3: client — what NetworkClock sends.
        public static let client = Mode(rawValue: 3)
        /// 4: server — the only mode NetworkClock accepts in a reply.
        public static let server = Mode(rawValue: 4)
        /// 5: broadcast.
        public static let broadcast = Mode(rawValue: 5)
        /// 6: NTP control message.
        public static let control = Mode(rawValue: 6)
        /// 7: reserved for private use.
        public static let privateUse = Mode(rawValue: 7)
    }

    /// The stratum: the server's distance from a reference clock, or 0 for a Kiss-o'-Death packet.
    public struct Stratum: RawRepresentable, Hashable, Comparable, Sendable {
        /// The wire value.
        public var rawValue: UInt8

        /// Creates a stratum from its wire value.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// 0: unspecified; in a reply, a Kiss-o'-Death message whose code is in the reference ID.
        public static let kissOfDeath = Stratum(rawValue: 0)
        /// 1: a primary server, synchronised to a reference clock.
        public static let primary = Stratum(rawValue: 1)
        /// 16: unsynchronised.
        public static let unsynchronized = Stratum(rawValue: 16)

        /// Whether this is stratum 0, which in a reply means Kiss-o'-Death.
        public var isKissOfDeath: Bool { rawValue == 0 }
        /// Whether the server says it is unsynchronised (16 or more).
        public var isUnsynchronized: Bool { rawValue >= 16 }

        /// Whether `lhs` is closer to a reference clock than `rhs`.
        public static func < (lhs: Stratum, rhs: Stratum) -> Bool { lhs.rawValue < rhs.rawValue }
    }

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
