import SNTP

/// What became of an anchor offered to ``AnchoredClock/offer(_:)``.
package enum AnchorUpdate: Sendable, Hashable {
    /// Refused: a negative bound or values outside the supported range. Nothing changed.
    case refused
    /// The offered anchor became the anchor as it was: there was none, or its interval lay inside
    /// the current anchor's interval aged to the same instant.
    case adopted
    /// The anchor became the intersection of the offered interval with the current one aged to
    /// the same instant, tighter than either; its time is the intersection's midpoint.
    case intersected
    /// The current anchor's aged interval lay inside the offered one, which added nothing: the
    /// anchor's interval is unchanged.
    case kept
    /// Refused because the current anchor came from authenticated time (NTS) and the offered one
    /// did not: unauthenticated evidence never moves authenticated time. Nothing changed.
    case keptAuthenticated
    /// The intervals did not overlap: the offered anchor replaced the current one, and the
    /// estimate jumped by `step` (new − old at the same instant; positive means later).
    case discontinuous(step: Duration)

    /// Whether the clock's anchor was replaced by one from the offered sample.
    package var replacedAnchor: Bool {
        switch self {
        case .adopted, .intersected, .discontinuous: true
        case .refused, .kept, .keptAuthenticated: false
        }
    }
}
