import NetClockPlatform
import SNTP

/// The intersection of a clock's current anchor with an offered one, both carried to the later
/// of their two instants on the time base (so neither is aged further than needed).
struct AnchorIntersection: Sendable {
    /// The classification: adopted, intersected, kept or discontinuous.
    let outcome: SyncReport.AnchorUpdate
    /// The resulting anchor in its simplest form: the offered anchor or the current one unchanged
    /// when either one's interval is the intersection, else the intersection at the common
    /// instant; the offered anchor when the intervals are disjoint.
    let anchor: HeldAnchor
    /// The same interval carried to the common instant (equal to ``anchor`` except when that is an
    /// unchanged anchor from an earlier instant); the offered anchor when disjoint.
    let atCommonInstant: HeldAnchor

    /// Intersects `offered` with `current`, both aged by `aging` to the later of their instants on
    /// the time base.
    init(current: HeldAnchor, offered: HeldAnchor, aging: HoldoverAging) {
        let later = offered.base.total >= current.base.total ? offered : current
        let old = current.aged(to: later.base, exchange: later.anchor.monotonic, by: aging)
        let new = offered.aged(to: later.base, exchange: later.anchor.monotonic, by: aging)
        let lower = max(old.earliest, new.earliest)
        let upper = min(old.latest, new.latest)
        if current.anchor.isAuthenticated && !offered.anchor.isAuthenticated {
            // Authentication is sticky: unauthenticated evidence never moves, narrows or replaces
            // authenticated time, however it compares.
            outcome = .keptAuthenticated
            anchor = current
            atCommonInstant = old
        } else if offered.anchor.isAuthenticated && !current.anchor.isAuthenticated && lower <= upper {
            // Unauthenticated evidence must not narrow (and so steer) authenticated time.
            outcome = .adopted
            anchor = offered
            atCommonInstant = new
        } else if lower > upper {
            outcome = .discontinuous(step: new.anchor.trueTime - old.anchor.trueTime)
            anchor = offered
            atCommonInstant = offered
        } else if lower == old.earliest && upper == old.latest {
            outcome = .kept
            anchor = current.authenticated(current.anchor.isAuthenticated && offered.anchor.isAuthenticated)
            atCommonInstant = old.authenticated(anchor.anchor.isAuthenticated)
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
            if bound >= new.anchor.errorBound {
                // Rounding ate the gain: the offered interval is as good.
                outcome = .adopted
                anchor = offered
                atCommonInstant = new
            } else if bound >= old.anchor.errorBound {
                outcome = .kept
                anchor = current.authenticated(
                    current.anchor.isAuthenticated && offered.anchor.isAuthenticated)
                atCommonInstant = old.authenticated(anchor.anchor.isAuthenticated)
            } else {
                let intersection = Anchor(
                    trueTime: middle, monotonic: later.anchor.monotonic, errorBound: bound,
                    source: offered.anchor.source, server: offered.anchor.server,
                    isAuthenticated: current.anchor.isAuthenticated && offered.anchor.isAuthenticated)
                outcome = .intersected
                anchor = HeldAnchor(anchor: intersection, base: later.base)
                atCommonInstant = anchor
            }
        }
    }
}

extension HeldAnchor {
    /// This anchor with `isAuthenticated` set to `value`.
    fileprivate func authenticated(_ value: Bool) -> HeldAnchor {
        var copy = self
        copy.anchor.isAuthenticated = value
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
