import TimeValues

/// What a new time (a sync's result, an ingested response) did to the clock's anchor.
public enum AnchorUpdate: Sendable, Hashable, CustomStringConvertible {
    /// Refused: a negative bound or values outside the supported range. Nothing changed.
    case refused
    /// The result became the anchor as it was: there was none, or its interval lay inside the
    /// current anchor's interval aged to the same instant.
    case adopted
    /// The anchor became the intersection of the result's interval with the current one aged
    /// to the same instant, tighter than either; its time is the intersection's midpoint.
    case intersected
    /// The current anchor's aged interval lay inside the result's, which added nothing: the
    /// anchor's interval is unchanged.
    case kept
    /// Refused because the current anchor came from authenticated time (NTS) and the result
    /// did not: unauthenticated evidence never moves authenticated time. Nothing changed.
    case keptAuthenticated
    /// The intervals did not overlap: the result replaced the anchor, and the estimate jumped
    /// by `step` (new − old at the same instant; positive means later).
    case discontinuous(step: Duration)

    /// Whether the anchor was replaced by one from the result.
    public var replacedAnchor: Bool {
        switch self {
        case .adopted, .intersected, .discontinuous: true
        case .refused, .kept, .keptAuthenticated: false
        }
    }

    /// The stable snake_case code the CLI's JSON prints: `adopted`, `intersected`, `kept`,
    /// `kept_authenticated`, `discontinuous` or `refused`.
    package var code: String {
        switch self {
        case .refused: "refused"
        case .adopted: "adopted"
        case .intersected: "intersected"
        case .kept: "kept"
        case .keptAuthenticated: "kept_authenticated"
        case .discontinuous: "discontinuous"
        }
    }

    /// E.g. `intersected` or `discontinuous (+1.250000s)`.
    public var description: String {
        switch self {
        case .refused: "refused"
        case .adopted: "adopted"
        case .intersected: "intersected"
        case .kept: "kept"
        case .keptAuthenticated: "kept (authenticated)"
        case .discontinuous(let step): "discontinuous (\(step.signedFormattedSeconds))"
        }
    }
}
