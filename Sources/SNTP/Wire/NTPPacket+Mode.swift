extension NTPPacket {
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
}

