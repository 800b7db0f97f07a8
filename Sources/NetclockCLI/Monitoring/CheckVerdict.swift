/// The verdict of `netclock check`, using the error bound honestly: CRITICAL only when every
/// offset the bound allows is beyond the critical range, OK only when every one is inside the
/// warning range (and the critical range), WARNING in between; UNKNOWN without trusted time or
/// with a bound wider than `--max-bound`. A downgrade (authenticated sources configured, only
/// unauthenticated ones answered) is at least WARNING.
package struct CheckVerdict: Hashable, Sendable {
    /// The service state.
    package var status: PluginStatus
    /// Why, in a few words (`offset may be beyond the warning range 0.5`); empty when OK.
    package var reasons: [String]

    /// Creates a verdict.
    package init(status: PluginStatus, reasons: [String] = []) {
        self.status = status
        self.reasons = reasons
    }

    /// Judges `evidence` (nil: no trusted time, `missing` saying why) against `thresholds`.
    package static func judge(
        _ evidence: CheckEvidence?, against thresholds: CheckThresholds, missing: String = "no trusted time"
    ) -> CheckVerdict {
        guard let evidence else { return CheckVerdict(status: .unknown, reasons: [missing]) }
        guard evidence.offset.isFinite, evidence.errorBound.isFinite, evidence.errorBound >= 0 else {
            return CheckVerdict(status: .unknown, reasons: ["no finite offset and bound"])
        }
        if let maxBound = thresholds.maxBound, evidence.errorBound > maxBound {
            return CheckVerdict(
                status: .unknown,
                reasons: [
                    "error bound \(PerfData.seconds(evidence.errorBound))s wider than --max-bound"
                        + " \(PerfData.seconds(maxBound))s"
                ])
        }
        let magnitude = evidence.magnitude
        var verdict: CheckVerdict
        let warning = "-w \(thresholds.warning)"
        let critical = "-c \(thresholds.critical)"
        if thresholds.critical.alertsThroughout(magnitude) {
            verdict = CheckVerdict(status: .critical, reasons: ["offset proven to alert \(critical)"])
        } else if !thresholds.critical.alertsNowhere(magnitude) {
            verdict = CheckVerdict(
                status: .warning, reasons: ["offset may alert \(critical) within its error bound"])
        } else if thresholds.warning.alertsThroughout(magnitude) {
            verdict = CheckVerdict(status: .warning, reasons: ["offset proven to alert \(warning)"])
        } else if !thresholds.warning.alertsNowhere(magnitude) {
            verdict = CheckVerdict(
                status: .warning, reasons: ["offset may alert \(warning) within its error bound"])
        } else {
            verdict = CheckVerdict(status: .ok)
        }
        if evidence.isDowngraded {
            if verdict.status == .ok { verdict.status = .warning }
            verdict.reasons.append(
                "downgrade: authenticated sources configured, only unauthenticated ones answered")
        }
        return verdict
    }
}
