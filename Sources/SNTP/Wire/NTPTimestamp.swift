import TimeValues
/// An NTP timestamp: 32 bits of seconds and 32 bits of binary fraction since 1900-01-01T00:00:00Z
/// (RFC 5905 §6), with a resolution of 2⁻³² s (about 233 ps).
///
/// The seconds wrap every 2³² s (era 1 starts on 2036-02-07T06:28:16Z), so a timestamp alone does
/// not say its era: ``unixTime`` applies the pivot rule of RFC 4330 §3, ``unixTime(near:)`` picks the
/// era closest to a reference time. Differences (``-(_:_:)``) need no era while under 68 years
/// (the HowTheErrorBoundWorks article of NetworkClock, "One exchange: offset θ and delay δ").
public struct NTPTimestamp: Hashable, Sendable {
    /// The 64-bit wire value: seconds in the high 32 bits, fraction in the low 32 bits.
    public var rawValue: UInt64

    /// Creates a timestamp from its 64-bit wire value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Creates a timestamp from its seconds and fraction fields.
    public init(seconds: UInt32, fraction: UInt32) {
        self.rawValue = UInt64(seconds) << 32 | UInt64(fraction)
    }

    /// The zero timestamp, which NTP uses to mean "unknown" or "not set".
    public static let zero = NTPTimestamp(rawValue: 0)

    /// Seconds since 1900 modulo 2³².
    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }

    /// Fraction of a second in units of 2⁻³² s.
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }

    /// Whether the timestamp is zero ("not set").
    public var isZero: Bool { rawValue == 0 }

    /// Seconds between 1900-01-01 (the NTP prime epoch) and 1970-01-01 (the Unix epoch).
    public static let unixEpochOffset: Int64 = 2_208_988_800

    /// Length of one NTP era, in seconds.
    public static let eraLength: Int64 = 1 << 32

    /// Encodes a Unix time, rounding the fraction to the nearest 2⁻³² s. The era is dropped, as on
    /// the wire.
    public init(_ time: UnixTime) {
        let sinceNTPEpoch = time.sinceEpoch + .seconds(Self.unixEpochOffset)
        self.init(wrapping: sinceNTPEpoch)
    }

    /// Encodes a duration since 1900-01-01, keeping it modulo one era.
    private init(wrapping sinceNTPEpoch: Duration) {
        var (seconds, atto) = sinceNTPEpoch.components
        if atto < 0 {
            seconds -= 1
            atto += 1_000_000_000_000_000_000
        }
        // fraction = round(atto × 2³² / 10¹⁸); the product needs more than 64 bits.
        let product = UInt64(atto).multipliedFullWidth(by: 1 << 32)
        let (quotient, remainder) = (1_000_000_000_000_000_000 as UInt64).dividingFullWidth(product)
        var fraction = quotient
        if remainder >= 500_000_000_000_000_000 { fraction += 1 }
        if fraction == 1 << 32 {
            fraction = 0
            seconds += 1
        }
        let wrappedSeconds = UInt32(truncatingIfNeeded: seconds)
        self.init(seconds: wrappedSeconds, fraction: UInt32(fraction))
    }

    /// The fraction field as a duration (exact to the nearest attosecond).
    public var fractionDuration: Duration {
        Self.duration(ofFraction: UInt64(fraction))
    }

    /// The era this timestamp is in under the RFC 4330 §3 pivot rule: 0 when the top bit of the
    /// seconds is set (1968–2036), 1 otherwise (2036–2104).
    public var pivotEra: Int64 { seconds & 0x8000_0000 != 0 ? 0 : 1 }

    /// The Unix time of this timestamp in the era given by the RFC 4330 §3 pivot rule.
    public var unixTime: UnixTime { unixTime(era: pivotEra) }

    /// The Unix time of this timestamp in the given NTP era.
    public func unixTime(era: Int64) -> UnixTime {
        let ntpSeconds = era * Self.eraLength + Int64(seconds)
        return UnixTime(sinceEpoch: .seconds(ntpSeconds - Self.unixEpochOffset) + fractionDuration)
    }

    /// The Unix time of this timestamp in whichever era puts it closest to `reference`.
    public func unixTime(near reference: UnixTime) -> UnixTime {
        reference + (self - NTPTimestamp(reference))
    }

    /// The signed difference `lhs − rhs`, computed by wrapping 64-bit subtraction read as a signed
    /// 32.32 value (RFC 5905 §6). Exact; valid when the true difference is within ±68 years.
    public static func - (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Duration {
        let difference = Int64(bitPattern: lhs.rawValue &- rhs.rawValue)
        let wholeSeconds = difference >> 32  // arithmetic shift: floor division
        let fraction = UInt64(difference & 0xFFFF_FFFF)
        return .seconds(wholeSeconds) + duration(ofFraction: fraction)
    }

    /// The timestamp `rhs` after `lhs`, wrapping at the era boundary.
    public static func + (lhs: NTPTimestamp, rhs: Duration) -> NTPTimestamp {
        let delta = NTPTimestamp(wrapping: rhs)
        return NTPTimestamp(rawValue: lhs.rawValue &+ delta.rawValue)
    }

    /// A 32-bit binary fraction of a second (units of 2⁻³² s) as a duration, rounded to the nearest
    /// attosecond.
    static func duration(ofFraction fraction: UInt64) -> Duration {
        let product = fraction.multipliedFullWidth(by: 1_000_000_000_000_000_000)
        // product / 2³², rounded to nearest.
        let shifted = (product.high << 32) | (product.low >> 32)
        let roundUp = product.low & 0x8000_0000 != 0 ? 1 : 0
        return Duration(secondsComponent: 0, attosecondsComponent: Int64(shifted) + Int64(roundUp))
    }
}

extension NTPTimestamp: CustomStringConvertible {
    /// The hexadecimal wire form `SSSSSSSS.FFFFFFFF`, as ntpq prints timestamps.
    public var description: String {
        hex(seconds) + "." + hex(fraction)
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
