import NetworkClock
import SNTP

/// `netclock query`: ask the servers, print what each said and the combined result.
struct QueryCommand {
    var options: QueryCommandOptions
    var console: Console

    func run() async -> ExitStatus {
        switch await TimeQuery(options: options).run(status: options.json ? nil : console.status) {
        case .success(let report):
            console.out(options.json ? JSONOutput.line(SyncReportJSON(report)) : ReportText.report(report))
            return .success
        case .failure(let error):
            if options.json {
                console.out(JSONOutput.line(SyncFailureJSON(error)))
            } else {
                for source in error.sources { console.out(ReportText.source(source)) }
                for source in error.httpSources { console.out(ReportText.http(source)) }
            }
            console.err("netclock: \(error.description)")
            return .noTime
        }
    }
}
