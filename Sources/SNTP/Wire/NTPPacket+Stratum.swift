extension NTPPacket {
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
}

