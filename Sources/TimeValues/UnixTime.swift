/// An instant on the UTC time scale, counted from the Unix epoch (1970-01-01T00:00:00Z).
///
/// `UnixTime` stores a `Duration` since the epoch, so it is exact to the attosecond over a range of
/// billions of years and never loses precision the way `Double` seconds do. Leap seconds are not
/// counted, as in POSIX time and in NTP.
public struct UnixTime: Hashable, Comparable, Sendable {
    /// The time elapsed since 1970-01-01T00:00:00Z; negative for earlier instants.
    public var sinceEpoch: Duration

    /// Creates an instant from the time elapsed since the Unix epoch.
    public init(sinceEpoch: Duration) {
        self.sinceEpoch = sinceEpoch
    }

    /// Creates an instant from whole seconds and nanoseconds since the Unix epoch.
    ///
    /// `nanoseconds` may be outside `0..<1_000_000_000`; it is added to `seconds`.
    public init(seconds: Int64, nanoseconds: Int64 = 0) {
        self.sinceEpoch = .seconds(seconds) + .nanoseconds(nanoseconds)
    }

    /// The Unix epoch itself.
    public static let epoch = UnixTime(sinceEpoch: .zero)

    /// Whole seconds since the epoch, rounded toward negative infinity.
    public var seconds: Int64 {
        let (s, atto) = sinceEpoch.components
        return atto < 0 ? s - 1 : s
    }

    /// Nanoseconds past `seconds`, in `0..<1_000_000_000` (truncated toward the earlier instant).
    public var nanoseconds: Int64 {
        let (_, atto) = sinceEpoch.components
        let positive = atto < 0 ? atto + 1_000_000_000_000_000_000 : atto
        return positive / 1_000_000_000
    }

    /// Attoseconds past `seconds`, in `0..<10^18`.
    public var attoseconds: Int64 {
        let (_, atto) = sinceEpoch.components
        return atto < 0 ? atto + 1_000_000_000_000_000_000 : atto
    }

    /// Seconds since the epoch as a `Double`, for display and interchange only (about 0.2 µs
    /// resolution today); never use it for arithmetic on timestamps.
    public var secondsDouble: Double {
        Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool {
        lhs.sinceEpoch < rhs.sinceEpoch
    }

    /// The instant `rhs` after `lhs`.
    public static func + (lhs: UnixTime, rhs: Duration) -> UnixTime {
        UnixTime(sinceEpoch: lhs.sinceEpoch + rhs)
    }

    /// The instant `rhs` before `lhs`.
    public static func - (lhs: UnixTime, rhs: Duration) -> UnixTime {
        UnixTime(sinceEpoch: lhs.sinceEpoch - rhs)
    }

    /// The signed time from `rhs` to `lhs`.
    public static func - (lhs: UnixTime, rhs: UnixTime) -> Duration {
        lhs.sinceEpoch - rhs.sinceEpoch
    }
}

extension UnixTime: CustomStringConvertible {
    /// The instant in ISO 8601 form with nanoseconds, in UTC, e.g. `2026-11-30T02:13:25.123456789Z`.
    public var description: String { ISO8601.format(self, fractionDigits: 9) }
}
