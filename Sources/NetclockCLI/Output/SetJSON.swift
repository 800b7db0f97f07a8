import NetworkClock

/// The `set` object of `set --json`, beside the sync's keys (which stay as `sync` prints them):
/// what was done to the system clock. Durations are seconds; times ISO 8601 UTC.
struct SetJSON: Encodable {
    /// `none`, `slew`, `step` or `refused`.
    var action: String
    /// Trusted time − system clock at the reading, seconds (positive: the clock was behind).
    var correction: Double
    /// The trusted time's bound at the reading, seconds.
    var errorBound: Double
    /// `automatic`, `step` or `slew`: the method asked for.
    var method: String
    /// Whether the time that decided is authenticated (NTS, Roughtime).
    var authenticated: Bool
    /// The system clock when the decision was made.
    var systemClockBefore: String
    /// The system clock read after the change (after deciding, when nothing was changed).
    var systemClockAfter: String
    /// The maximum error declared to the kernel, seconds; `null` when none was declared.
    var kernelMaximumError: Nullable<Double>
    /// Whether `--dry-run` kept every change from being made.
    var dryRun: Bool
    /// The other time disciplines found, e.g. `chronyd (pid 812)`.
    var otherTimeDaemons: [String]
    /// The refusal's code (`before_floor`, `not_permitted`, …), or `null`.
    var errorCode: Nullable<String>
    /// The refusal's reason, or `null`.
    var reason: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case action, correction, method, authenticated, reason
        case errorBound = "error_bound"
        case systemClockBefore = "system_clock_before"
        case systemClockAfter = "system_clock_after"
        case kernelMaximumError = "kernel_maximum_error"
        case dryRun = "dry_run"
        case otherTimeDaemons = "other_time_daemons"
        case errorCode = "error_code"
    }

    /// The object for `outcome`. A refusal by the kernel turns the action into `refused`.
    init(_ outcome: SetCommand.Outcome) {
        let decision = outcome.decision
        action =
            outcome.refusal == nil
            ? decision.action.rawValue : NetworkClock.SystemClockDecision.Action.refused.rawValue
        correction = decision.correction.secondsDouble
        errorBound = decision.errorBound.secondsDouble
        method = decision.method.rawValue
        authenticated = decision.isAuthenticated
        systemClockBefore = ISO8601.format(decision.reading.wall, fractionDigits: 6)
        systemClockAfter = ISO8601.format(outcome.systemClockAfter, fractionDigits: 6)
        let declared = outcome.refusal == nil && !outcome.dryRun ? decision.declaredMaximumError : nil
        kernelMaximumError = Nullable(declared?.secondsDouble)
        dryRun = outcome.dryRun
        otherTimeDaemons = outcome.otherDisciplines.map(\.description)
        errorCode = Nullable(outcome.refusal?.code.rawValue)
        reason = Nullable(outcome.refusal?.reason)
    }
}
