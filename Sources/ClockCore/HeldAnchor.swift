import NetClockPlatform
import TimeValues

/// An anchor as an ``AnchoredClock`` holds it: the anchor (true time at an exchange-clock instant,
/// within its bound) and where that instant lies on the time base, the line the clock extrapolates
/// along.
package struct HeldAnchor: Sendable, Hashable {
    /// The anchor, with its exchange-clock instant.
    package var anchor: Anchor
    /// The anchor's instant on the time base.
    package var base: TimeBaseInstant

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
        result.applyLeap(from: anchor.trueTime)
        return result
    }

    /// The anchor's interval: the true time at its exchange-clock instant, within its bound.
    var interval: TrueTimeInterval {
        TrueTimeInterval(time: anchor.trueTime, bound: anchor.errorBound, instant: anchor.monotonic)
    }

    /// `anchor` placed on the time base by the paired `reading`: its instant is `d` before the
    /// reading's on the exchange clock, so `d` before it on the time base. Unless the exchange clock
    /// is the time base (`exact`), that holds within the kernel's possible slew over `d` (plus any
    /// phase it still has to slew), the reading's own pairing uncertainty, and, if a suspend was
    /// seen since the last reading (`lastSuspended`), the cost of not knowing whether it fell
    /// inside `d` (awake time then corrected as suspended, or the reverse): the bound grows by all
    /// of it.
    init(
        placing anchor: Anchor, by reading: TimeBaseReading, discipline: KernelDiscipline,
        lastSuspended: Duration?, exact: Bool, policy: ClockPolicy
    ) {
        let distance = reading.exchange - anchor.monotonic
        base = TimeBaseInstant(awake: reading.base.awake - distance, suspended: reading.base.suspended)
        self.anchor = anchor
        guard !exact else { return }
        self.anchor.errorBound += reading.uncertainty
        if distance != .zero {
            self.anchor.errorBound += abs(distance).drift(atPPM: discipline.mappingRate * 1e6)
            self.anchor.errorBound += discipline.boundWidening
        }
        if let lastSuspended, reading.base.suspended > lastSuspended, distance > .zero {
            let unsure = min(distance, reading.base.suspended - lastSuspended)
            self.anchor.errorBound += unsure.drift(
                atPPM: (policy.priorFraction + policy.suspendToleranceFraction) * 1e6)
        }
    }

    /// Creates a held anchor from its parts.
    init(anchor: Anchor, base: TimeBaseInstant) {
        self.anchor = anchor
        self.base = base
    }

    /// The intersection of this interval and `other`'s at the same instant (this one's metadata),
    /// its midpoint rounded down and its bound up to whole nanoseconds; nil when they are disjoint.
    func intersection(_ other: HeldAnchor) -> HeldAnchor? {
        guard let both = interval.intersection(other.interval) else { return nil }
        var result = self
        (result.anchor.trueTime, result.anchor.errorBound) = both.pointEstimate
        return result
    }

    /// Whether this interval lies inside `other`'s (both at the same instant).
    func isInside(_ other: HeldAnchor) -> Bool {
        interval.isInside(other.interval)
    }
}
