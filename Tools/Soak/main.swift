import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import Roughtime
import Synchronization

// `netclock-soak [--rounds N] [--netclock PATH]`: the release CLI for many rounds over every source
// kind (NTP, NTS, Roughtime, HTTP, HTTPS, the HTTP fallback after a silent NTP server) and the
// library's background refresh (HTTP and NTP), all at once against loopback servers; a table of
// what each run held, and exit 1 when any crashed, failed a round or leaked descriptors.
// Built in release mode, where the optimiser's bugs live (Testing.md, "Soak").

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "refresh-client", arguments.count >= 3, let rounds = Int(arguments[1]) {
    exit(await RefreshClient.run(rounds: rounds, sources: Array(arguments.dropFirst(2))))
}

var rounds = 24
var netclock = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("netclock").path
var index = 0
while index < arguments.count {
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    switch (arguments[index], value) {
    case ("--rounds", let value?) where Int(value).map({ $0 >= 2 }) == true: rounds = Int(value) ?? rounds
    case ("--netclock", let value?): netclock = value
    default:
        FileHandle.standardError.write(Data("usage: netclock-soak [--rounds N>=2] [--netclock PATH]\n".utf8))
        exit(2)
    }
    index += 2
}
guard FileManager.default.isExecutableFile(atPath: netclock) else {
    FileHandle.standardError.write(
        Data("netclock-soak: no netclock at \(netclock) (swift build -c release)\n".utf8))
    exit(2)
}

let servers: SoakServers
do {
    servers = try SoakServers()
} catch {
    FileHandle.standardError.write(Data("netclock-soak: cannot start the loopback servers: \(error)\n".utf8))
    exit(1)
}
defer { servers.stop() }

let runs = servers.runs(netclock: netclock, soak: CommandLine.arguments[0], rounds: rounds)
print(
    "soak: \(runs.count) scenarios at once, \(rounds) rounds each (NTS: \(max(2, rounds / 3))), release build"
)
let outcomes = Mutex<[SoakRun.Outcome]>([])
let group = DispatchGroup()
for run in runs {
    group.enter()
    Thread.detachNewThread {
        let outcome = run.perform()
        outcomes.withLock { $0.append(outcome) }
        group.leave()
    }
}
group.wait()

let ordered = outcomes.withLock { $0 }.sorted { lhs, rhs in
    runs.firstIndex { $0.name == lhs.run.name } ?? 0 < runs.firstIndex { $0.name == rhs.run.name } ?? 0
}
print(SoakReport.table(ordered))
let failed = ordered.filter { !$0.problems.isEmpty }
for outcome in failed {
    print("\nsoak: \(outcome.run.name) FAILED: \(outcome.problems.joined(separator: "; "))")
    print("  \(outcome.run.executable) \(outcome.run.arguments.joined(separator: " "))")
    if !outcome.errorTail.isEmpty {
        print(outcome.errorTail.split(separator: "\n").map { "  | \($0)" }.joined(separator: "\n"))
    }
}
print(
    failed.isEmpty
        ? "soak: every scenario held" : "soak: \(failed.count) of \(ordered.count) scenarios failed")
exit(failed.isEmpty ? 0 : 1)
