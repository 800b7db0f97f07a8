/// The `check --json` object: the verdict and what it was judged on (seconds).
struct CheckJSON: Encodable {
    /// `ok`, `warning`, `critical` or `unknown`.
    var status: String
    /// The exit status, 0-3.
    var exitStatus: Int32
    /// The status line without its performance data.
    var summary: String
    /// True time − system clock; `null` without trusted time.
    var offset: Nullable<Double>
    /// The offset's error bound; `null` without trusted time.
    var errorBound: Nullable<Double>
    /// Whether the time is authenticated; `null` without trusted time.
    var authenticated: Nullable<Bool>
    /// Whether it is a downgrade; `null` without trusted time.
    var downgrade: Nullable<Bool>
    /// Sources the time rests on.
    var sources: Int
    /// `--state`: the anchor's age; absent for a query.
    var age: Double?
    /// Why the verdict is not OK.
    var reasons: [String]

    enum CodingKeys: String, CodingKey {
        case status, summary, offset, authenticated, downgrade, sources, age, reasons
        case exitStatus = "exit_status"
        case errorBound = "error_bound"
    }

    init(verdict: CheckVerdict, outcome: CheckCommand.Outcome, summary: String) {
        status = verdict.status.description.lowercased()
        exitStatus = verdict.status.rawValue
        self.summary = summary
        offset = Nullable(outcome.evidence?.offset)
        errorBound = Nullable(outcome.evidence?.errorBound)
        authenticated = Nullable(outcome.evidence?.isAuthenticated)
        downgrade = Nullable(outcome.evidence?.isDowngraded)
        sources = outcome.sources
        age = outcome.age
        reasons = verdict.reasons
    }

}
