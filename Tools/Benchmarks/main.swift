import ClockCore
import Foundation

// netclock-bench: benchmarks that print figures as ratios against a baseline measured in the same
// run (the machines are shared and noisy). Run in release: `swift run -c release netclock-bench`.
let usage = """
    usage: netclock-bench [all|now|holdover|query|accuracy|sync|http|https|nts|nts-chronyd|nts-packet|roughtime|fleet]
      now       ns per AnchoredClock.now() vs Date() and clock_gettime, 1 and 4 reader threads
      holdover  the bound's coverage and size after 1 h, 1 day and 7 days offline, simulated
                machines, against today's 500 ppm design
      query     time of an 8-sample burst vs one exchange against the loopback fake server
      accuracy  per-source intersection vs minimum-delay sample (and naive reads) over simulated
                network scenarios, against the information limit of the packets
      sync      accuracy and packets with 1, 3 and 5 servers; combine methods compared
      http      refined HTTP Date estimate vs a single naive Date read
      https     HTTPS (own TLS client) vs plain HTTP: Date and timestamp-header accuracy, bound, time
      nts       NTS vs plain SNTP on loopback: one exchange, one key exchange, first and second query
      nts-chronyd  NTS vs plain NTP against one real chronyd (-x) on loopback: the client's CPU
      nts-packet  the client's work on one NTS request and reply (no socket) vs a plain one and
                vs AES-SIV alone
      roughtime Roughtime: verification cost per reply vs SHA-512/Ed25519/NTP decode; one query's
                wall time vs roughly's against the same loopback server
      fleet     a million installs' queries per second, requests per day and now() within the need,
                per refresh policy, simulated (`netclock-bench fleet --help` for its options)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let selection = arguments.first ?? "all"
let known = [
    "all", "now", "holdover", "query", "accuracy", "sync", "http", "https", "nts", "nts-chronyd",
    "nts-packet",
    "roughtime", "fleet",
]
if selection == "fleet" {
    if arguments.contains("--help") || arguments.contains("-h") {
        print(FleetOptions.usage)
        exit(0)
    }
    do {
        try runFleetBenchmark(Array(arguments.dropFirst()))
    } catch {
        FileHandle.standardError.write(Data("netclock-bench: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
guard known.contains(selection), arguments.count <= 1 else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
do {
    if selection == "all" || selection == "now" { runNowBenchmark(); print() }
    if selection == "all" || selection == "holdover" { runHoldoverBenchmark(); print() }
    if selection == "all" || selection == "query" { try runQueryBenchmark(); print() }
    if selection == "all" || selection == "accuracy" { try runAccuracyBenchmark(); print() }
    if selection == "all" || selection == "sync" { try await runSyncBenchmark(); print() }
    if selection == "all" || selection == "http" { await runHTTPBenchmark(); print() }
    if selection == "all" || selection == "https" { await runHTTPSBenchmark(); print() }
    if selection == "all" || selection == "nts" { try runNTSBenchmark(); print() }
    if selection == "all" || selection == "nts-chronyd" { try runNTSChronydBenchmark(); print() }
    if selection == "all" || selection == "nts-packet" { try runNTSPacketBenchmark(); print() }
    if selection == "all" || selection == "roughtime" { try runRoughtimeBenchmark(); print() }
    if selection == "all" { try runFleetBenchmark([]) }
} catch {
    FileHandle.standardError.write(Data("netclock-bench: \(error)\n".utf8))
    exit(1)
}
