/// The soak's table: one row per scenario, with the footprint after the first round read and after
/// the last one read (`→`), so growth across rounds is visible at a glance.
enum SoakReport {
    static func table(_ outcomes: [SoakRun.Outcome]) -> String {
        let header = ["scenario", "rounds", "exit", "RSS kB (round)", "fds", "threads", "time", "verdict"]
        let rows = outcomes.map { outcome -> [String] in
            let exit = outcome.exitStatus.map { $0 > 128 ? "signal \($0 - 128)" : "\($0)" } ?? "killed"
            func span(_ value: (ProcessFootprint) -> Int, rounds: Bool = false) -> String {
                guard let first = outcome.first, let last = outcome.last else { return "-" }
                return rounds
                    ? "\(value(first.footprint)) (r\(first.round)) → \(value(last.footprint)) (r\(last.round))"
                    : "\(value(first.footprint)) → \(value(last.footprint))"
            }
            return [
                outcome.run.name, "\(outcome.lines - outcome.failedRounds)/\(outcome.run.rounds)", exit,
                span(\.residentKilobytes, rounds: true), span(\.descriptors), span(\.threads),
                "\(Int(outcome.elapsed / .seconds(1))) s", outcome.problems.isEmpty ? "held" : "FAILED",
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        return ([header] + rows).map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
