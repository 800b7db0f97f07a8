/// A reading of a monotonic clock: time elapsed since an unspecified origin (boot, on Linux).
///
/// Only differences between two instants from the same clock are meaningful.
package struct MonotonicInstant: Hashable, Comparable, Sendable {
    /// The time elapsed since the clock's origin.
    package var sinceOrigin: Duration

    /// Creates an instant at `sinceOrigin` after the clock's origin.
    package init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    /// Whether `lhs` is earlier than `rhs`.
    package static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }

    /// The instant `rhs` after `lhs`.
    package static func + (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: lhs.sinceOrigin + rhs)
    }

    /// The instant `rhs` before `lhs`.
    package static func - (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: lhs.sinceOrigin - rhs)
    }

    /// The signed time from `rhs` to `lhs`.
    package static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        lhs.sinceOrigin - rhs.sinceOrigin
    }
}
