import NetworkClock

/// `netclock query`: ask the servers, print what each said and the combined result.
struct QueryCommand {
    var options: QueryCommandOptions
    var console: Console

    func run() async -> ExitStatus {
        guard let query = TimeQuery.make(options: options, console: console) else { return .noTime }
        switch await query.run(status: options.json ? nil : console.status) {
        case .success(let report):
            let proof = query.keepProof(report.roughtime, console: console)
            console.out(
                options.json
                    ? JSONOutput.line(SyncReportJSON(report, malfeasanceReport: proof))
                    : ReportText.report(report))
            return .success
        case .failure(let error):
            let proof = query.keepProof(error.roughtime, console: console)
            if options.json {
                console.out(JSONOutput.line(SyncFailureJSON(error, malfeasanceReport: proof)))
            } else {
                ReportText.servers(error.servers, roughtime: error.roughtime).forEach(console.out)
                if let check = error.certificateCheck {
                    console.out("certificates checked against \(check.phrase)")
                }
            }
            console.err("netclock: \(error.description)")
            return .noTime
        }
    }
}
