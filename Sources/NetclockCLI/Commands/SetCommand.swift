import NetworkClock
import TimeBase

/// `netclock set`'s own step, after the sync that `sync` runs (``SyncCommand``) succeeded and
/// saved its anchor and floor: decide from the sync's result and one reading of the system clock
/// (``SystemClockDecision``), then, unless `--dry-run`, apply it (``NetworkClock/applyToSystemClock(_:)``).
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

    /// Decides from `report` and `clock`'s reading of the system clock, with the floor the sync
    /// left, and applies the decision unless this is a dry run.
    func run(after report: SyncReport, clock: NetworkClock) -> Outcome {
        var policy = options.systemClock
        policy.frequencyTolerancePPM = clock.configuration.clock.frequencyTolerancePPM
        let disciplines = NetworkClock.TimeDiscipline.running()
        let decision = NetworkClock.SystemClockDecision(
            report: report, reading: clock.readSystemClock(), floor: clock.timeFloor,
            otherDisciplines: disciplines, policy: policy)
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
        if outcome.refusal != nil || decision.action == .refused {
            return "system clock: not corrected by \(correction) (\(interval))"
        }
        switch decision.action {
        case .none, .refused:
            return "system clock: \(correction) off, inside the trusted interval (\(interval)): left alone"
        case .slew:
            // The kernel slews a single-shot adjustment at 500 µs per second.
            let seconds = abs(decision.correction.secondsDouble) / 0.000_5
            return "system clock: \(wouldOrDid)slewed \(correction) (\(interval)), done in about "
                + "\(Int(seconds.rounded(.up))) s"
        case .step:
            let now = ISO8601.format(outcome.systemClockAfter, fractionDigits: 6)
            return "system clock: \(wouldOrDid)stepped \(correction) (\(interval)); it reads \(now)"
        }
    }
}
