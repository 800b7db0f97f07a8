import NetClockPlatform
import SNTP

/// An anchor as an ``AnchoredClock`` holds it: the anchor (true time at an exchange-clock instant,
/// within its bound) and where that instant lies on the time base, the line the clock extrapolates
/// along.
struct HeldAnchor: Sendable, Hashable {
    /// The anchor, with its exchange-clock instant.
    var anchor: Anchor
    /// The anchor's instant on the time base.
    var base: TimeBaseInstant

    /// This anchor carried to time-base instant `instant` (exchange-clock instant `exchange`) along
    /// the clock's line: the time moves by the elapsed awake time less the frequency correction
    /// plus the suspended time, and the bound grows as `aging` says, rounded up, plus a nanosecond
    /// for the truncated correction, so the result is sound wherever the original was.
    func aged(to instant: TimeBaseInstant, exchange: MonotonicInstant, by aging: HoldoverAging) -> HeldAnchor
    {
        let awake = instant.awake - base.awake
        let suspended = instant.suspended - base.suspended
        var result = self
        result.base = instant
        result.anchor.monotonic = exchange
        guard awake != .zero || suspended != .zero else { return result }
        result.anchor.trueTime = anchor.trueTime + aging.trueElapsed(awake: awake, suspended: suspended)
        var bound = anchor.errorBound + aging.growth(from: base, to: instant)
        if aging.frequencyError != 0 { bound += .nanoseconds(1) }
        result.anchor.errorBound = bound
        return result
    }

    /// The earliest the true time can be at the anchor instant.
    var earliest: UnixTime { anchor.trueTime - anchor.errorBound }

    /// The latest the true time can be at the anchor instant.
    var latest: UnixTime { anchor.trueTime + anchor.errorBound }

    /// Whether this interval lies inside `other`'s (both at the same instant).
    func isInside(_ other: HeldAnchor) -> Bool {
        earliest >= other.earliest && latest <= other.latest
    }
}

extension Duration {
    /// `self × factor` rounded up to a whole nanosecond plus one nanosecond, for a non-negative
    /// duration under 2⁶² ns and a factor in `0...1`: at least the exact product.
    func scaledRoundingUp(by factor: Double) -> Duration {
        guard factor > 0 else { return .zero }
        let nanoseconds = (Double(attoseconds) * factor / 1e9).rounded(.up)
        return .nanoseconds(Int64(nanoseconds) + 1)
    }
}
