import NetworkClock

/// `netclock check`: a Monitoring Plugin. Queries like `query` (every source option), or with
/// `--state` and no servers reads the stored anchor like `now` (no network traffic), and judges
/// the offset with its error bound (``CheckVerdict``): one status line with performance data,
/// exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
struct CheckCommand {
    var options: QueryCommandOptions
    var console: Console

    /// What was measured, for the status line, `-v` and `--json`.
    struct Outcome {
        /// The evidence, or nil without trusted time.
        var evidence: CheckEvidence?
        /// Why there is no evidence (or why it is not judged).
        var missing = "no trusted time"
        /// `nts`, `ntp`, `http`, `roughtime`, or `anchor (…)` for a stored anchor.
        var origin = ""
        /// Sources the time rests on.
        var sources = 0
        /// The anchor's age (`--state`), nil for a query.
        var age: Double?
        /// Lines `-v` prints after the status line.
        var detail: [String] = []
    }

    func run() async -> PluginStatus {
        let outcome = options.statePath != nil ? fromAnchor() : await fromQuery()
        var verdict = CheckVerdict.judge(
            outcome.evidence, against: options.checkThresholds, missing: outcome.missing)
        if let age = outcome.age, let maxAge = options.maxAge?.secondsDouble, age > maxAge {
            verdict = CheckVerdict(
                status: .unknown,
                reasons: [
                    "the anchor is \(PerfData.seconds(age))s old, older than --max-age"
                        + " \(PerfData.seconds(maxAge))s"
                ])
        }
        let summary = Self.summary(verdict, outcome)
        if options.json {
            console.out(JSONOutput.line(CheckJSON(verdict: verdict, outcome: outcome, summary: summary)))
        } else {
            console.out(summary + "|" + perfData(outcome).map(\.description).joined(separator: " "))
            if options.verbosity > 0 {
                outcome.detail.forEach(console.out)
            }
        }
        return verdict.status
    }

    /// The status line before the performance data.
    static func summary(_ verdict: CheckVerdict, _ outcome: Outcome) -> String {
        var line = "NETCLOCK \(verdict.status) - "
        if let evidence = outcome.evidence {
            // Where the system clock is: the negated offset (true time − system clock).
            line += "system clock \(PerfData.signedSeconds(-evidence.offset))s"
            line += " ± \(PerfData.seconds(evidence.errorBound))s"
            line +=
                evidence.isAuthenticated
                ? " from trusted time (\(outcome.origin), authenticated)"
                : " from unauthenticated time (\(outcome.origin))"
            if !verdict.reasons.isEmpty { line += ": " + verdict.reasons.joined(separator: "; ") }
        } else {
            line += verdict.reasons.joined(separator: "; ")
        }
        return line
    }

    /// `offset`, `error_bound`, `sources`, `authenticated` (and `age` from an anchor).
    private func perfData(_ outcome: Outcome) -> [PerfData] {
        let thresholds = options.checkThresholds
        var data: [PerfData] = []
        if let evidence = outcome.evidence {
            data.append(
                PerfData(
                    "offset", PerfData.seconds(evidence.offset), unit: "s",
                    warning: thresholds.warning.description, critical: thresholds.critical.description))
            data.append(
                PerfData(
                    "error_bound", PerfData.seconds(evidence.errorBound), unit: "s",
                    warning: thresholds.maxBound.map(PerfData.seconds) ?? "", minimum: "0"))
        }
        data.append(PerfData("sources", String(outcome.sources), minimum: "0"))
        if let evidence = outcome.evidence {
            data.append(
                PerfData("authenticated", evidence.isAuthenticated ? "1" : "0", minimum: "0", maximum: "1"))
        }
        if let age = outcome.age {
            data.append(
                PerfData(
                    "age", PerfData.seconds(age), unit: "s",
                    warning: options.maxAge.map { PerfData.seconds($0.secondsDouble) } ?? "", minimum: "0"))
        }
        return data
    }

    /// One round against the configured sources. Downgrades are let through to the verdict (which
    /// makes them WARNING at least) rather than refused by the clock.
    private func fromQuery() async -> Outcome {
        var options = self.options
        options.allowDowngrade = true
        guard let query = TimeQuery.make(options: options, console: console) else {
            return Outcome(missing: "the Roughtime server list is unusable (see stderr)")
        }
        switch await query.run(status: nil) {
        case .success(let report):
            // The clock's trusted time after the round, against one reading of the system clock.
            guard let comparison = query.clock.systemClockOffset() else {
                return Outcome(missing: "no trusted time: the clock did not take the round's result")
            }
            let evidence = CheckEvidence(
                offset: comparison.offset.secondsDouble, errorBound: comparison.errorBound.secondsDouble,
                isAuthenticated: comparison.isAuthenticated, isDowngraded: report.isDowngraded)
            let origin =
                report.source == .ntp && report.isAuthenticated ? "nts" : report.source.rawValue
            let http = report.servers.filter { $0.http != nil && $0.tookPart }.count
            let roughtime = report.servers.filter { $0.roughtime != nil && $0.status == .agreed }.count
            let detail = ReportText.servers(report.servers, roughtime: report.roughtime)
            return Outcome(
                evidence: evidence, origin: origin, sources: report.agreeingSources + http + roughtime,
                detail: detail)
        case .failure(let error):
            var missing = "no trusted time: \(error.description)"
            if error.code != .unauthenticatedOnly
                && error.servers.contains(where: { $0.ntp != nil && $0.status == .unauthenticated })
            {
                missing += " (only unauthenticated sources answered, a downgrade --nts-mode require refuses)"
            }
            let detail = ReportText.servers(error.servers, roughtime: error.roughtime)
            return Outcome(missing: missing, detail: detail)
        }
    }

    /// The stored anchor, as `now` reads it: no network traffic.
    private func fromAnchor() -> Outcome {
        let store: AnchorStore
        switch AnchorFileLocation.store(for: options) {
        case .success(let found): store = found
        case .failure(let error): return Outcome(missing: "no valid anchor: \(error.reason)")
        }
        let clock = NetworkClock(configuration: NetworkClock.Configuration(servers: [], store: store))
        if case .failure(let error)? = clock.restoreResult {
            return Outcome(missing: "no valid anchor: \(error.reason)")
        }
        guard let comparison = clock.systemClockOffset() else {
            return Outcome(missing: "no valid anchor in \(store.path) (run `netclock sync --state FILE`)")
        }
        let estimate = comparison.trustedTime
        let evidence = CheckEvidence(
            offset: comparison.offset.secondsDouble, errorBound: comparison.errorBound.secondsDouble,
            isAuthenticated: comparison.isAuthenticated)
        let origin = "anchor, " + (estimate.server ?? estimate.source.rawValue)
        return Outcome(
            evidence: evidence, origin: origin, sources: 1, age: estimate.age.secondsDouble,
            detail: [
                "anchor \(store.path): synced \(estimate.age.formattedSeconds) ago from"
                    + " \(estimate.server ?? "?") (\(estimate.source)), bound"
                    + " \(estimate.errorBound.formattedSeconds)\(estimate.isDriftCorrected ? ", drift corrected" : "")"
            ])
    }
}
