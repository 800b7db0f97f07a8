import Foundation
import LoopbackServers

/// One soak scenario: a release `netclock` (or this tool's own refresh client) run for many rounds
/// against loopback servers, watched from outside.
///
/// Every printed line is a round. The footprint is read as each line appears, so the first and the
/// last readings bracket the run; the process must exit 0 with every round a success and without
/// holding more descriptors at the end than after its first round.
struct SoakRun: Sendable {
    /// The scenario's name in the report.
    var name: String
    /// The program and its arguments.
    var executable: String
    var arguments: [String]
    /// How many rounds the program was asked for.
    var rounds: Int
    /// How long it may take in all.
    var timeout: Duration

    /// What a run did.
    struct Outcome: Sendable {
        var run: SoakRun
        /// The exit status (128 + signal for a crash); nil when it had to be killed.
        var exitStatus: Int32?
        /// Lines printed, and those that report no time.
        var lines = 0
        var failedRounds = 0
        /// The readings after the first round and after the last one read, with their round numbers.
        var first: (round: Int, footprint: ProcessFootprint)?
        var last: (round: Int, footprint: ProcessFootprint)?
        var elapsed: Duration = .zero
        /// The last lines of standard error, shown when the run failed.
        var errorTail = ""

        /// Descriptors a round may leave open beyond the first round's (a socket closing while read).
        static let descriptorSlack = 2

        /// Why this run fails the soak; empty when it held.
        var problems: [String] {
            var problems: [String] = []
            switch exitStatus {
            case nil: problems.append("did not finish within \(run.timeout)")
            case 0: break
            case let status? where status > 128: problems.append("crashed: signal \(status - 128)")
            case let status?: problems.append("exit status \(status)")
            }
            if lines < run.rounds { problems.append("\(lines) of \(run.rounds) rounds printed") }
            if failedRounds > 0 { problems.append("\(failedRounds) rounds without time") }
            if let first, let last,
                last.footprint.descriptors > first.footprint.descriptors + Self.descriptorSlack
            {
                problems.append(
                    "descriptors grew from \(first.footprint.descriptors) to \(last.footprint.descriptors)")
            }
            return problems
        }
    }

    /// Runs the scenario to its end, blocking the calling thread.
    func perform() -> Outcome {
        var outcome = Outcome(run: self)
        let directory = FileManager.default.temporaryDirectory.path
        let tag = "netclock-soak-\(getpid())-\(name)"
        let (out, err) = ("\(directory)/\(tag).out", "\(directory)/\(tag).err")
        defer {
            unlink(out)
            unlink(err)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(executable, arguments, stdout: out, stderr: err)
        } catch {
            outcome.errorTail = "\(error)"
            return outcome
        }
        while process.isRunning && clock.now - start < timeout {
            let lines = Self.lines(of: out)
            if lines.count > outcome.lines, let footprint = ProcessFootprint.read(pid: process.pid) {
                if outcome.first == nil { outcome.first = (lines.count, footprint) }
                outcome.last = (lines.count, footprint)
            }
            outcome.lines = lines.count
            Thread.sleep(forTimeInterval: 0.02)
        }
        let finished = !process.isRunning
        process.terminate()
        outcome.exitStatus = finished ? process.exitStatus : nil
        let lines = Self.lines(of: out)
        outcome.lines = lines.count
        outcome.failedRounds = lines.filter { $0.contains("no time") }.count
        outcome.elapsed = clock.now - start
        outcome.errorTail = Self.lines(of: err).suffix(12).joined(separator: "\n")
        return outcome
    }

    /// The complete lines of `path` so far.
    private static func lines(of path: String) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(
            text.hasSuffix("\n") ? 0 : 1
        )
        .map(String.init)
    }
}
