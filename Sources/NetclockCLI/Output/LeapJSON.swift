import NetworkClock

/// The `leap` object of `now --json` and `sync --json`: `kind` (`none`, `insert`, `delete`,
/// `unknown`), `at` (the UTC midnight it concerns; for `none`, the first month end nothing is known
/// about), `mode` (`step` as POSIX time does, or `smear`); in `sync`, also `disagreeing` (the deciding
/// servers whose leap indicator disagreed) and `table_note` (why the leap-second table was not used,
/// or null).
struct LeapJSON: Encodable {
    var kind: String
    var at: String
    var mode: String
    var disagreeing: [String]?
    var tableNote: Nullable<String>?

    enum CodingKeys: String, CodingKey {
        case kind, at, mode, disagreeing
        case tableNote = "table_note"
    }

    init(_ leap: TimeEstimate.Leap) {
        kind = leap.kind.rawValue
        at = ISO8601.format(leap.instant, fractionDigits: 0)
        mode = leap.isSmeared ? "smear" : "step"
    }

    init(_ report: SyncReport) {
        self.init(report.leap)
        disagreeing = report.leapDisagreeing
        tableNote = Nullable(report.leapTableNote)
    }
}

extension TimeEstimate.Leap {
    /// Whether the human output names the leap at `time`: a leap announced (or smeared), or a
    /// month end already passed without anyone saying whether it had one (the bound then holds
    /// the second). The ordinary "nothing known yet about this month's end" stays in the JSON.
    func isWorthALine(at time: UnixTime) -> Bool {
        switch kind {
        case .insert, .delete: true
        case .unknown: instant <= time
        case .none: isSmeared
        }
    }

    /// The human form: `none until 2027-01-01`, `insert at 2027-01-01T00:00:00Z (smeared)`.
    var text: String {
        let at = ISO8601.format(instant, fractionDigits: 0)
        let what =
            switch kind {
            case .none: "none before \(at)"
            case .unknown: "unknown at \(at)"
            case .insert, .delete: "\(kind.rawValue) at \(at)"
            }
        return isSmeared ? what + " (smeared)" : what
    }
}
