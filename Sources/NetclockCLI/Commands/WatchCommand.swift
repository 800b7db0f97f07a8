import NetClockPlatform
import NetworkClock
import SNTP

/// `netclock watch`: start a round every `--every` seconds and print one line per round until
/// interrupted or `--count` rounds have run.
struct WatchCommand {
    var options: QueryCommandOptions
    var console: Console

    func run() async -> ExitStatus {
        guard let query = TimeQuery.make(options: options, console: console) else { return .noTime }
        let clock = ContinuousClock()
        var roundStart = clock.now
        var round = 0
        var anySuccess = false
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
                let proof = query.keepProof(report.roughtime, console: console)
                console.out(
                    options.json
                        ? JSONOutput.line(SyncReportJSON(report, malfeasanceReport: proof)) : line(report))
            case .failure(let error):
                let proof = query.keepProof(error.roughtime, console: console)
                if options.json {
                    console.out(JSONOutput.line(SyncFailureJSON(error, malfeasanceReport: proof)))
                } else {
                    console.out(
                        "\(ISO8601.format(SystemWallClock().now(), fractionDigits: 3))  no time: \(error)"
                    )
                }
            }
        }
        return anySuccess ? .success : .noTime
    }

    private func line(_ report: SyncReport) -> String {
        let total = report.sources.filter { $0.query != nil }.count
        return
            "\(ISO8601.format(report.trueTime, fractionDigits: 3))  offset \(report.offset.signedFormattedSeconds)"
            + "  delay \(report.delay.formattedSeconds)  ±\(report.errorBound.formattedSeconds)"
            + "  agree \(report.agreeingSources)/\(total)  \(report.source)"
            + (report.certificateCheck.map { "  certificates \($0)" } ?? "")
    }
}
