import NetworkClock

/// `netclock set`'s own step, after the sync that `sync` runs (``SyncCommand``): decide from the
/// clock's trusted time at one bracketed reading of the system clock
/// (``NetworkClock/SystemClockOffset``, then ``NetworkClock/SystemClockDecision``), never from the
/// sync's report, then, unless `--dry-run`, apply it (``NetworkClock/applyToSystemClock(_:)``).
///
/// The trusted time is what the clock holds after the sync: the sync's result when the clock took
/// it, the held anchor when that outranks it (an authenticated anchor against unauthenticated
/// evidence), or the held authenticated anchor alone when no source answered.
struct SetCommand {
    /// What `set` did: the decision, the system clock around it, and the refusal if any.
    struct Outcome {
        var decision: NetworkClock.SystemClockDecision
        /// The other disciplines found (empty when none).
        var otherDisciplines: [NetworkClock.TimeDiscipline]
        /// The system clock read right after the change (or after deciding, when nothing changed).
        var systemClockAfter: UnixTime
        /// Whether `--dry-run` kept the calls from being made.
        var dryRun: Bool
        /// The guard's or the kernel's refusal; nil when the decision was carried out.
        var refusal: NetworkClock.SystemClockRefusal?
    }

    var options: QueryCommandOptions

    /// Decides from `clock`'s trusted time against a reading of the system clock, with the floor
    /// the sync left, and applies the decision unless this is a dry run; nil when the clock holds
    /// no time.
    func run(clock: NetworkClock) -> Outcome? {
        let disciplines = NetworkClock.TimeDiscipline.running()
        guard let offset = clock.systemClockOffset() else { return nil }
        let decision = NetworkClock.SystemClockDecision(
            offset: offset, floor: clock.timeFloor, otherDisciplines: disciplines, policy: options.systemClock
        )
        var refusal = decision.refusal
        if !options.dryRun && refusal == nil {
            do throws(NetworkClock.SystemClockRefusal) {
                try NetworkClock.applyToSystemClock(decision)
            } catch {
                refusal = error
            }
        }
        return Outcome(
            decision: decision, otherDisciplines: disciplines,
            systemClockAfter: NetworkClock.systemClockNow(),
            dryRun: options.dryRun, refusal: refusal)
    }

    /// The line `set` prints after the sync's: what was done to the system clock.
    static func text(_ outcome: Outcome) -> String {
        let decision = outcome.decision
        let interval = "± \(decision.errorBound.formattedSeconds)"
        let correction = decision.correction.signedFormattedSeconds
        let wouldOrDid = outcome.dryRun ? "dry run, would have " : ""
        let time = decision.isAuthenticated ? "from authenticated time" : "from unauthenticated time"
        switch decision.action {
        case .none:
            return "system clock: \(correction) off, inside the trusted interval (\(interval)) \(time): "
                + "left alone" + kernelStatusText(outcome)
        case _ where outcome.refusal != nil, .refused:
            return "system clock: not corrected by \(correction) (\(interval)) \(time)"
        case .slew:
            // The kernel slews a single-shot adjustment at 500 µs per second.
            let seconds = abs(decision.correction.secondsDouble) / 0.000_5
            return "system clock: \(wouldOrDid)slewed \(correction) (\(interval)) \(time), done in about "
                + "\(Int(seconds.rounded(.up))) s"
        case .step:
            let now = ISO8601.format(outcome.systemClockAfter, fractionDigits: 6)
            return "system clock: \(wouldOrDid)stepped \(correction) (\(interval)) \(time); it reads \(now)"
        }
    }

    /// What the kernel was told about a clock left alone: `; the kernel was told it is synchronised
    /// (maximum error 0.000301s)`, what a dry run would have told it, why it was not told.
    private static func kernelStatusText(_ outcome: Outcome) -> String {
        guard let maximum = outcome.decision.declaredMaximumError else {
            return "; its kernel status is left to the other time discipline"
        }
        let status = "it is synchronised (maximum error \(maximum.formattedSeconds))"
        if outcome.dryRun { return "; dry run, would have told the kernel \(status)" }
        if outcome.refusal != nil { return ", but the kernel could not be told \(status)" }
        return "; the kernel was told \(status)"
    }
}
