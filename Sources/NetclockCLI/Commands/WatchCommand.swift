import NetworkClock

/// `netclock watch`: start a round every `--every` seconds and print one line per round until
/// interrupted or `--count` rounds have run.
struct WatchCommand {
    var options: QueryCommandOptions
    var console: Console

    func run() async -> ExitStatus {
        guard let query = TimeQuery.make(options: options, console: console) else { return .noTime }
        if let notice = Self.spacingNotice(options) { console.err(notice) }
        let clock = ContinuousClock()
        var roundStart = clock.now
        var round = 0
        var anySuccess = false
        var metrics = WatchMetrics()
        while options.count.map({ round < $0 }) ?? true {
            if round > 0 {
                // Rounds start `--every` apart; after a round that took longer, the next starts at
                // once (and etiquette spaces its requests).
                try? await Task.sleep(until: roundStart + options.every, clock: clock)
                if Task.isCancelled { break }
                roundStart = clock.now
            }
            round += 1
            switch await query.run(status: options.json ? nil : console.status) {
            case .success(let report):
                anySuccess = true
                metrics.record(report)
                let proof = query.keepProof(report.roughtime, console: console)
                console.out(
                    options.json
                        ? JSONOutput.line(SyncReportJSON(report, malfeasanceReport: proof)) : line(report))
            case .failure(let error):
                metrics.record(error)
                let proof = query.keepProof(error.roughtime, console: console)
                if options.json {
                    console.out(JSONOutput.line(SyncFailureJSON(error, malfeasanceReport: proof)))
                } else {
                    console.out(
                        "\(ISO8601.format(NetworkClock.systemClockNow(), fractionDigits: 3))  no time: \(error)"
                    )
                }
            }
            if let path = options.metricsPath { writeMetrics(metrics, of: query.clock, to: path) }
        }
        return anySuccess ? .success : .noTime
    }

    /// `--metrics FILE`: the exposition of `metrics` with `clock`'s state now, written atomically.
    private func writeMetrics(_ metrics: WatchMetrics, of clock: NetworkClock, to path: String) {
        let state = clock.systemClockOffset().map { comparison in
            WatchMetrics.ClockState(
                offset: comparison.offset.secondsDouble, errorBound: comparison.errorBound.secondsDouble,
                isAuthenticated: comparison.isAuthenticated, age: comparison.trustedTime.age.secondsDouble)
        }
        let text = metrics.text(clock: state, frequency: state == nil ? nil : clock.frequency())
        // Mode 0644 (node_exporter usually runs as another user); the temporary file's name does
        // not end in `.prom`, so the textfile collector never reads it.
        if let reason = PublishedFile.write(Array(text.utf8), to: path) {
            console.err("netclock: the metrics could not be written: \(reason)")
        }
    }

    /// The shortest time from one round's start to the next that etiquette allows: a round sends
    /// `--samples` requests to each NTP (or NTS) server address, and the sync engine keeps the
    /// requests to one address at least `--interval` apart, from one round to the next too (its
    /// `SourceEtiquette`). Nil when no NTP server is asked (`--http-only`, Roughtime alone): HTTP(S)
    /// and Roughtime sources space no rounds.
    static func etiquettePeriod(_ options: QueryCommandOptions) -> Duration? {
        guard !options.httpOnly, !options.effectiveServers.isEmpty else { return nil }
        return options.interval * options.samples
    }

    /// What `watch` says once on stderr when etiquette makes its rounds further apart than `--every`
    /// asks, e.g. `netclock: rounds every 8 s, not every 0.5 s: …`; nil when it does not (or only
    /// one round is run).
    static func spacingNotice(_ options: QueryCommandOptions) -> String? {
        guard options.count != 1, let period = etiquettePeriod(options), period > options.every else {
            return nil
        }
        let requests = options.samples == 1 ? "1 request" : "\(options.samples) requests"
        return "netclock: rounds every \(seconds(period)) s, not every \(seconds(options.every)) s:"
            + " a round sends each server \(requests) (--samples), and requests to a server are at least"
            + " \(seconds(options.interval)) s apart (--interval), as public servers expect"
    }

    /// Seconds with at most six decimals and no trailing zeros: `8`, `0.5`, `0.25`.
    static func seconds(_ duration: Duration) -> String {
        var text = duration.secondsDouble.decimalString(fractionDigits: 6)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private func line(_ report: SyncReport) -> String {
        let total = report.servers.filter { $0.ntp?.query != nil }.count
        return
            "\(ISO8601.format(report.trueTime, fractionDigits: 3))  offset \(report.offset.signedFormattedSeconds)"
            + "  delay \(report.delay.formattedSeconds)  ±\(report.errorBound.formattedSeconds)"
            + "  agree \(report.agreeingSources)/\(total)  \(report.source)"
            + (report.certificateCheck.map { "  certificates \($0)" } ?? "")
    }
}
