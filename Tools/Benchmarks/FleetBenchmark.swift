import FleetSimulation
import Foundation

// `netclock-bench fleet`: the fleet simulator (FleetSimulation.md). A sample of clients over two
// simulated days, every policy on the same events, scaled to a million clients: the queries per
// second the time servers see, the requests per client and day, and how many of the app's `now()`
// calls read a time within the need. The `demand` policy is the library's own clock and schedule.

/// Runs the simulator with the arguments after `fleet`; prints the tables, or one JSON object.
func runFleetBenchmark(_ arguments: [String]) throws {
    let options: FleetOptions
    do {
        options = try FleetOptions.parse(arguments)
    } catch {
        FileHandle.standardError.write(Data("netclock-bench fleet: \(error)\n\(FleetOptions.usage)\n".utf8))
        exit(2)
    }
    let started = ContinuousClock.now
    let report = options.simulation.run(threads: options.threads)
    let elapsed = ContinuousClock.now - started
    if let path = options.svgPath {
        try FleetPlot(report: report).svg().write(toFile: path, atomically: true, encoding: .utf8)
    }
    if options.json {
        print(report.json())
        return
    }
    if options.markdown {
        print(fleetMarkdown(report))
        return
    }
    print(fleetTables(report))
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "simulated in %.1f s on %d threads", seconds, options.threads))
}

/// The text tables of a report.
func fleetTables(_ report: FleetReport) -> String {
    let simulation = report.simulation
    var lines = [
        "fleet: \(simulation.clients) clients over \(simulation.model.days) days, scaled to a million;"
            + " seed \(simulation.seed); need \(Int(simulation.model.need * 1000)) ms;"
            + " peak = busiest \(Int(simulation.model.binWidth)) s"
            + (simulation.variant.isDefault
                ? "" : "; demand variant: " + simulation.variant.flags.joined(separator: " "))
    ]
    var table = Table(header: fleetColumns)
    for row in fleetRows(report) { table.add(row) }
    let days = Array(0..<simulation.model.days).map { Optional($0) } + [nil]
    lines.append(table.render())
    lines.append("")
    lines.append("requests per client and day by reason (all days):")
    for (name, tally) in report.tallies {
        guard let figures = report.figures(of: name) else { continue }
        let reasons = figures.packetsByReason.sorted { $0.value > $1.value }
            .map { "\($0.key) " + String(format: "%.1f", $0.value) }
        let checks =
            tally.boundChecks > 0
            ? "; bound held the truth in \(tally.boundChecks - tally.boundViolations)"
                + " of \(tally.boundChecks) readings checked" : ""
        lines.append(
            "  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) "
                + reasons.joined(separator: ", ") + checks)
    }
    lines.append("")
    lines.append("queries per second per million in the spike's minute by reason (mean of the days):")
    for (name, _) in report.tallies {
        guard let figures = report.figures(of: name) else { continue }
        let reasons = figures.spikeQPSByReason.sorted { $0.value > $1.value }
            .map { "\($0.key) " + String(format: "%.0f", $0.value) }
        lines.append(
            "  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) " + reasons.joined(separator: ", "))
    }
    lines.append("")
    for day in days {
        guard let verdict = DemandVerdict(report, day: day) else { continue }
        lines.append(
            "demand, \(day.map { "day \($0 + 1)" } ?? "all days"): "
                + String(format: "×%.1f gentler than lifecycle at the peak", verdict.peakRatio)
                + " (≥ 100: \(verdict.isGentleEnough ? "met" : "missed")), "
                + String(format: "%.1f requests per client and day", verdict.packetsPerClientDay)
                + " (≤ 24: \(verdict.isFrugalEnough ? "met" : "missed")), "
                + "\(percent(verdict.withinNeed)) of now() within the need"
                + " (≥ 99 %: \(verdict.meetsNeedEnough ? "met" : "missed"))")
    }
    return lines.joined(separator: "\n")
}

/// The columns of the main table.
let fleetColumns = [
    "policy", "day", "peak q/s/M", "mean q/s/M", "requests/client/day", "syncs/client/day", "within need",
    "error within", "no time",
]

/// The main table's rows: each policy on each day and on all days.
func fleetRows(_ report: FleetReport) -> [[String]] {
    let days = Array(0..<report.simulation.model.days).map { Optional($0) } + [nil]
    var rows: [[String]] = []
    for (name, _) in report.tallies {
        for day in days {
            guard let figures = report.figures(of: name, day: day) else { continue }
            rows.append([
                day == 0 ? name : "", day.map { "\($0 + 1)" } ?? "all",
                String(format: "%.0f", figures.peakQPSPerMillion),
                String(format: "%.0f", figures.meanQPSPerMillion),
                String(format: "%.1f", figures.packetsPerClientDay),
                String(format: "%.2f", figures.syncsPerClientDay),
                percent(figures.withinNeed), percent(figures.errorWithinNeed), percent(figures.withoutTime),
            ])
        }
    }
    return rows
}

/// The main table in Markdown, for the FleetSimulation article.
func fleetMarkdown(_ report: FleetReport) -> String {
    let rows = [fleetColumns, fleetColumns.map { _ in "---" }] + fleetRows(report)
    return rows.map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
}

/// A fraction as a percentage with two decimals.
private func percent(_ fraction: Double) -> String {
    String(format: "%.2f %%", fraction * 100)
}
