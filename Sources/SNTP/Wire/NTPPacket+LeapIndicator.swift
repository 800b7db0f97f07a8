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
}

