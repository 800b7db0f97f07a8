import NetClockPlatform
import TimeValues

/// The intersection of a clock's current anchor with an offered one, both carried to the later
/// of their two instants on the time base (so neither is aged further than needed).
struct AnchorIntersection: Sendable {
    /// The classification: adopted, intersected, kept or discontinuous.
    let outcome: AnchorUpdate
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
        if current.anchor.isAuthenticated && !offered.anchor.isAuthenticated {
            // Authentication is sticky: unauthenticated evidence never moves, narrows or replaces
            // authenticated time, however it compares.
            (outcome, anchor, atCommonInstant) = (.keptAuthenticated, current, old)
            return
        }
        guard let both = old.interval.intersection(new.interval) else {
            (outcome, anchor, atCommonInstant) = (
                .discontinuous(step: new.anchor.trueTime - old.anchor.trueTime), offered, offered
            )
            return
        }
        let authenticated = current.anchor.isAuthenticated && offered.anchor.isAuthenticated
        let (middle, bound) = both.pointEstimate
        if offered.anchor.isAuthenticated && !current.anchor.isAuthenticated {
            // Unauthenticated evidence must not narrow (and so steer) authenticated time.
            (outcome, anchor, atCommonInstant) = (.adopted, offered, new)
        } else if both.hasEnds(of: old.interval) {
            anchor = current.authenticated(authenticated)
            (outcome, atCommonInstant) = (.kept, old.authenticated(authenticated))
        } else if both.hasEnds(of: new.interval) || bound >= new.anchor.errorBound {
            // (Or rounding ate the gain: the offered interval is as good.)
            (outcome, anchor, atCommonInstant) = (.adopted, offered, new)
        } else if bound >= old.anchor.errorBound {
            anchor = current.authenticated(authenticated)
            (outcome, atCommonInstant) = (.kept, old.authenticated(authenticated))
        } else {
            let intersection = Anchor(
                trueTime: middle, monotonic: later.anchor.monotonic, errorBound: bound,
                source: offered.anchor.source, server: offered.anchor.server, isAuthenticated: authenticated)
            anchor = HeldAnchor(anchor: intersection, base: later.base)
            (outcome, atCommonInstant) = (.intersected, anchor)
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
