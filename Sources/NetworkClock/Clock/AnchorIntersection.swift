import NetClockPlatform
import SNTP

/// How the clock's bound ages: the drift correction applied and the rate the bound grows at,
/// both as fractions.
struct AnchorAging: Sendable, Hashable {
    /// The monotonic clock's frequency error that is corrected for (0 when none is applied).
    var frequencyError: Double
    /// The rate at which the bound grows.
    var growthRate: Double
}

extension Anchor {
    /// This anchor carried to monotonic instant `instant` along the clock's line: the time moves by
    /// the elapsed monotonic time less the drift correction, and the bound grows by `growthRate`
    /// times the elapsed time, rounded up, plus a nanosecond for each rounded product, so the
    /// result is sound wherever the original was.
    func aged(to instant: MonotonicInstant, by aging: AnchorAging) -> Anchor {
        let elapsed = instant - monotonic
        guard elapsed != .zero else { return self }
        var result = self
        result.monotonic = instant
        var bound = errorBound + abs(elapsed).scaledRoundingUp(by: aging.growthRate)
        if aging.frequencyError != 0 {
            // In whole nanoseconds, like the published estimate; the extra nanosecond covers it.
            let correction = Int64(Double(elapsed.attoseconds) * aging.frequencyError / 1e9)
            result.trueTime = trueTime + elapsed - .nanoseconds(correction)
            bound += .nanoseconds(1)
        } else {
            result.trueTime = trueTime + elapsed
        }
        result.errorBound = bound
        return result
    }

    /// The earliest the true time can be at the anchor instant.
    var earliest: UnixTime { trueTime - errorBound }

    /// The latest the true time can be at the anchor instant.
    var latest: UnixTime { trueTime + errorBound }
}

extension Duration {
    /// `self × factor` rounded up to a whole nanosecond plus one nanosecond, for a non-negative
    /// duration under 2⁶² ns and a factor in `0...1` (growth rates are at most 500 ppm plus a
    /// tick's 10 %): at least the exact product.
    func scaledRoundingUp(by factor: Double) -> Duration {
        guard factor > 0 else { return .zero }
        let nanoseconds = (Double(attoseconds) * factor / 1e9).rounded(.up)
        return .nanoseconds(Int64(nanoseconds) + 1)
    }
}

/// The intersection of a clock's current anchor with an offered one, both carried to the later
/// of their two instants (so neither is aged further than needed).
struct AnchorIntersection: Sendable {
    /// The classification: adopted, intersected, kept or discontinuous.
    let outcome: SyncReport.AnchorUpdate
    /// The resulting anchor in its simplest form: the offered anchor or the current one unchanged
    /// when either one's interval is the intersection, else the intersection at the common
    /// instant; the offered anchor when the intervals are disjoint.
    let anchor: Anchor
    /// The same interval carried to the common instant (equal to ``anchor`` except when that is an
    /// unchanged anchor from an earlier instant); the offered anchor when disjoint.
    let atCommonInstant: Anchor

    /// Intersects `offered` with `current`, both aged by `aging`.
    init(current: Anchor, offered: Anchor, aging: AnchorAging) {
        let instant = max(current.monotonic, offered.monotonic)
        let old = current.aged(to: instant, by: aging)
        let new = offered.aged(to: instant, by: aging)
        let lower = max(old.earliest, new.earliest)
        let upper = min(old.latest, new.latest)
        if current.isAuthenticated && !offered.isAuthenticated {
            // Authentication is sticky: unauthenticated evidence never moves, narrows or replaces
            // authenticated time, however it compares.
            outcome = .keptAuthenticated
            anchor = current
            atCommonInstant = old
        } else if offered.isAuthenticated && !current.isAuthenticated && lower <= upper {
            // Unauthenticated evidence must not narrow (and so steer) authenticated time.
            outcome = .adopted
            anchor = offered
            atCommonInstant = new
        } else if lower > upper {
            outcome = .discontinuous(step: new.trueTime - old.trueTime)
            anchor = offered
            atCommonInstant = offered
        } else if lower == old.earliest && upper == old.latest {
            outcome = .kept
            anchor = current.authenticated(current.isAuthenticated && offered.isAuthenticated)
            atCommonInstant = old.authenticated(anchor.isAuthenticated)
        } else if lower == new.earliest && upper == new.latest {
            outcome = .adopted
            anchor = offered
            atCommonInstant = new
        } else {
            // The midpoint rounded down to a whole nanosecond (anchors stay exact in the anchor
            // file); the bound reaches the upper edge, the farther one, rounded up, so both edges
            // stay inside it.
            let middle = UnixTime(sinceEpoch: (lower + (upper - lower) / 2).sinceEpoch.flooredToNanosecond)
            let bound = (upper - middle).ceiledToNanosecond
            if bound >= new.errorBound {
                // Rounding ate the gain: the offered interval is as good.
                outcome = .adopted
                anchor = offered
                atCommonInstant = new
            } else if bound >= old.errorBound {
                outcome = .kept
                anchor = current.authenticated(current.isAuthenticated && offered.isAuthenticated)
                atCommonInstant = old.authenticated(anchor.isAuthenticated)
            } else {
                let intersection = Anchor(
                    trueTime: middle, monotonic: instant, errorBound: bound, source: offered.source,
                    server: offered.server,
                    isAuthenticated: current.isAuthenticated && offered.isAuthenticated)
                outcome = .intersected
                anchor = intersection
                atCommonInstant = intersection
            }
        }
    }
}

extension Anchor {
    /// This anchor with `isAuthenticated` set to `value`.
    fileprivate func authenticated(_ value: Bool) -> Anchor {
        var copy = self
        copy.isAuthenticated = value
        return copy
    }
}

extension Duration {
    /// Rounded toward negative infinity to a whole nanosecond.
    var flooredToNanosecond: Duration {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Duration(attoseconds: (remainder < 0 ? quotient - 1 : quotient) * 1_000_000_000)
    }

    /// Rounded toward positive infinity to a whole nanosecond.
    var ceiledToNanosecond: Duration {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Duration(attoseconds: (remainder > 0 ? quotient + 1 : quotient) * 1_000_000_000)
    }
}
