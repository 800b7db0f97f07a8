/// A reading of a monotonic clock: time elapsed since an unspecified origin (boot, on Linux).
///
/// Only differences between two instants from the same clock are meaningful.
public struct MonotonicInstant: Hashable, Comparable, Sendable {
    /// The time elapsed since the clock's origin.
    public var sinceOrigin: Duration

    /// Creates an instant at `sinceOrigin` after the clock's origin.
    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }

    /// The instant `rhs` after `lhs`.
    public static func + (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: lhs.sinceOrigin + rhs)
    }

    /// The instant `rhs` before `lhs`.
    public static func - (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: lhs.sinceOrigin - rhs)
    }

    /// The signed time from `rhs` to `lhs`.
    public static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        lhs.sinceOrigin - rhs.sinceOrigin
    }
}

extension MonotonicInstant: CustomStringConvertible {
    /// The time since the clock's origin (boot, for the boot-time clock), e.g. `boot+3612.004518s`.
    public var description: String { "boot+\(sinceOrigin.formattedSeconds)" }
}
