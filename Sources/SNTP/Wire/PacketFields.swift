/// The leap indicator: a warning of an impending leap second, or that the server is unsynchronised.
package struct LeapIndicator: RawRepresentable, Hashable, Sendable {
    /// The two-bit wire value (0–3).
    package var rawValue: UInt8

    /// Creates a leap indicator; only the low two bits are kept.
    package init(rawValue: UInt8) {
        self.rawValue = rawValue & 0b11
    }

    /// 0: no warning.
    package static let noWarning = LeapIndicator(rawValue: 0)
    /// 1: the last minute of the day has 61 seconds.
    package static let insertSecond = LeapIndicator(rawValue: 1)
    /// 2: the last minute of the day has 59 seconds.
    package static let deleteSecond = LeapIndicator(rawValue: 2)
    /// 3: alarm — the server's clock is not synchronised.
    package static let alarm = LeapIndicator(rawValue: 3)

    /// A short name: `none`, `insert`, `delete` or `alarm`.
    package var name: String {
        switch rawValue {
        case 0: return "none"
        case 1: return "insert"
        case 2: return "delete"
        default: return "alarm"
        }
    }
}

/// The association mode of an NTP packet.
package struct NTPMode: RawRepresentable, Hashable, Sendable {
    /// The three-bit wire value (0–7).
    package var rawValue: UInt8

    /// Creates a mode; only the low three bits are kept.
    package init(rawValue: UInt8) {
        self.rawValue = rawValue & 0b111
    }

    /// 0: reserved.
    package static let reserved = NTPMode(rawValue: 0)
    /// 1: symmetric active.
    package static let symmetricActive = NTPMode(rawValue: 1)
    /// 2: symmetric passive.
    package static let symmetricPassive = NTPMode(rawValue: 2)
    /// 3: client — what NetworkClock sends.
    package static let client = NTPMode(rawValue: 3)
    /// 4: server — the only mode NetworkClock accepts in a reply.
    package static let server = NTPMode(rawValue: 4)
    /// 5: broadcast.
    package static let broadcast = NTPMode(rawValue: 5)
    /// 6: NTP control message.
    package static let control = NTPMode(rawValue: 6)
    /// 7: reserved for private use.
    package static let privateUse = NTPMode(rawValue: 7)
}

/// The stratum: the server's distance from a reference clock, or 0 for a Kiss-o'-Death packet.
package struct Stratum: RawRepresentable, Hashable, Comparable, Sendable {
    /// The wire value.
    package var rawValue: UInt8

    /// Creates a stratum from its wire value.
    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// 0: unspecified; in a reply, a Kiss-o'-Death message whose code is in the reference ID.
    package static let kissOfDeath = Stratum(rawValue: 0)
    /// 1: a primary server, synchronised to a reference clock.
    package static let primary = Stratum(rawValue: 1)
    /// 16: unsynchronised.
    package static let unsynchronized = Stratum(rawValue: 16)

    /// Whether this is stratum 0, which in a reply means Kiss-o'-Death.
    package var isKissOfDeath: Bool { rawValue == 0 }
    /// Whether the server says it is unsynchronised (16 or more).
    package var isUnsynchronized: Bool { rawValue >= 16 }

    /// Whether `lhs` is closer to a reference clock than `rhs`.
    package static func < (lhs: Stratum, rhs: Stratum) -> Bool { lhs.rawValue < rhs.rawValue }
}
