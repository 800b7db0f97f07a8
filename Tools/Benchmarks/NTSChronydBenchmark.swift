import Foundation
import LoopbackServers
import NTSClient
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// `netclock-bench nts-chronyd`: what NTS costs the client against a real chronyd serving both
/// plain NTP and NTS on loopback, so that the server's work (and its speed, which decides how often
/// the client sleeps for a reply) is the same for both and out of the figure, as issue 45 asks.
/// chronyd runs with `-x` (it never touches this machine's clock), as root so it reads the test
/// certificates' key, on 127.0.0.1 only, and is stopped by its pid. The series, interleaved round
/// by round: one plain exchange and one NTS exchange on a kept association (baseline A), and every
/// fifth round a plain 4-sample burst and an `NTSQuery` on sessions kept all run long (baseline B).
/// Skipped with the reason when chronyd is not installed.
func runNTSChronydBenchmark() throws {
    guard let chronyd = TestExecutables.path(of: "chronyd") else {
        print("nts-chronyd: skipped: chronyd is not installed (apt-get install -y chrony)")
        return
    }
    let certificates: TestCertificates
    do {
        certificates = try TestCertificates.require()
    } catch {
        throw NTSBenchmarkFailure("cannot make the test certificates for chronyd: \(error)")
    }
    let server = try BenchChronyd(chronyd: chronyd, certificates: certificates)
    defer { server.stop() }
    guard let plainAddress = SocketAddress(numericHost: "127.0.0.1", port: server.ntpPort) else {
        throw NTSBenchmarkFailure("no address for chronyd's NTP port \(server.ntpPort)")
    }
    let bench = NTSBench(
        plainAddress: plainAddress, keServer: ServerName(host: "127.0.0.1", port: server.ntsPort),
        trust: .caFile(certificates.caFile))
    let association = NTSAssociation(try bench.keyExchange())
    guard
        let ntpAddress = SocketAddress(numericHost: association.keys.ntpHost, port: association.keys.ntpPort)
    else {
        throw NTSBenchmarkFailure("chronyd's NTS-KE named an NTP server by name: \(association.keys.ntpHost)")
    }
    let kept = bench.query(sessions: NTSSessions())
    for expected in [1, 0, 0, 0, 0] { _ = try bench.timedQuery(kept, keyExchanges: expected) }
    for _ in 0..<20 {  // warm up
        _ = try bench.exchange(plainAddress, protection: nil)
        _ = try bench.exchange(ntpAddress, protection: NTSPacketProtection(association: association))
        _ = try bench.plainBurst()
    }
    // chronyd's clock is this machine's: every offset must lie within its bound of zero.
    let truth = Duration.zero
    var plainExchange = NTSBenchSeries()
    var ntsExchange = NTSBenchSeries()
    var plainBurst = NTSBenchSeries()
    var keptQuery = NTSBenchSeries()
    for round in 0..<500 {
        plainExchange.add(try bench.exchange(plainAddress, protection: nil), truth: truth)
        ntsExchange.add(
            try bench.exchange(ntpAddress, protection: NTSPacketProtection(association: association)),
            truth: truth)
        if round % 5 == 2 {
            plainBurst.add(try bench.plainBurst(), truth: truth)
            keptQuery.add(try bench.timedQuery(kept, keyExchanges: 0), truth: truth)
        }
    }
    let (one, oneCPU) = (plainExchange.median, plainExchange.cpuMedian)
    let (four, fourCPU) = (plainBurst.median, plainBurst.cpuMedian)
    var table = Table(header: [
        "measurement", "runs", "median (ms)", "p90 (ms)", "ratio", "baseline", "client CPU (ms)", "CPU ratio",
        "p90 |offset err| (ms)", "in bound",
    ])
    table.add(
        plainExchange.row("plain exchange (chronyd)", baseline: one, oneCPU, baselineName: "A (itself)"))
    table.add(ntsExchange.row("NTS exchange (association kept)", baseline: one, oneCPU, baselineName: "A"))
    table.add(plainBurst.row("plain 4-sample burst", baseline: four, fourCPU, baselineName: "B (itself)"))
    table.add(keptQuery.row("NTSQuery, sessions kept (4)", baseline: four, fourCPU, baselineName: "B"))
    print(
        "nts-chronyd: NTS (RFC 8915) vs plain NTP against one chronyd \(server.version) on 127.0.0.1 serving both"
    )
    print(
        "(chronyd -x: this machine's clock untouched); interval 0, timeout 1 s; series interleaved round by")
    print("round; ratios are medians over baseline A (one plain exchange) or B (a plain 4-sample burst).")
    print(table.render())
    let outside = [plainExchange, ntsExchange, plainBurst, keptQuery].reduce(0) { $0 + $1.outside }
    guard outside == 0 else {
        throw NTSBenchmarkFailure("\(outside) offsets lay outside their error bound of chronyd's clock")
    }
}

/// A chronyd for the benchmark: plain NTP and NTS-KE on free loopback ports, in a private directory
/// that ``stop()`` removes with the process.
private final class BenchChronyd {
    let ntpPort: UInt16
    let ntsPort: UInt16
    let version: String
    private let directory: String
    private let process: SpawnedProcess

    init(chronyd: String, certificates: TestCertificates) throws {
        var template = Array("/tmp/netclock-bench-chronyd.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw NTSBenchmarkFailure("mkdtemp failed") }
        directory = String(cString: made)
        version = Self.version(of: chronyd)
        var lastFailure = "no attempt"
        for _ in 0..<3 {
            let ntp = UInt16.random(in: 20_000...32_767)
            let nts = UInt16.random(in: 20_000...32_767)
            guard ntp != nts else { continue }
            let config = directory + "/chrony.conf"
            let dump = directory + "/nts-dump-\(ntp)"
            try? FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: false)
            let lines = [
                "port \(ntp)", "ntsport \(nts)", "bindaddress 127.0.0.1", "allow 127.0.0.0/8",
                "local stratum 8",
                "cmdport 0", "pidfile \(directory)/chronyd.pid", "ntsserverkey \(certificates.serverKey)",
                "ntsservercert \(certificates.serverCertificate)", "ntsdumpdir \(dump)", "ntsprocesses 0",
            ]
            try (lines.joined(separator: "\n") + "\n").write(
                toFile: config, atomically: true, encoding: .utf8)
            let log = directory + "/chronyd.log"
            // -x: never touch this machine's clock; -t 300: exits by itself should this process die.
            let process = try SpawnedProcess(
                chronyd, ["-4", "-u", "root", "-x", "-d", "-t", "300", "-f", config], stdout: log, stderr: log
            )
            if Self.waitUntilServing(process, ntp: ntp, nts: nts) {
                (self.process, ntpPort, ntsPort) = (process, ntp, nts)
                return
            }
            process.terminate()
            lastFailure = (try? String(contentsOfFile: log, encoding: .utf8)) ?? "no log"
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw NTSBenchmarkFailure("chronyd did not serve NTP and NTS-KE on loopback:\n\(lastFailure)")
    }

    /// Stops chronyd by its pid and removes its directory.
    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Polls (at most 5 s) until a plain query is answered and the NTS-KE port accepts a connection.
    private static func waitUntilServing(_ process: SpawnedProcess, ntp: UInt16, nts: UInt16) -> Bool {
        guard let address = SocketAddress(numericHost: "127.0.0.1", port: ntp) else { return false }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        let client = SNTPClient()
        let probe = QueryOptions(samples: 1, interval: .zero, timeout: .milliseconds(200))
        while clock.now < deadline, process.isRunning {
            if client.query(address, options: probe).best != nil, Self.accepts(port: nts) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted within 200 ms.
    private static func accepts(port: UInt16) -> Bool {
        guard let address = SocketAddress(numericHost: "127.0.0.1", port: port),
            let connection = try? TCPConnection(startingConnectionTo: address)
        else { return false }
        defer { connection.close() }
        return (try? connection.waitUntilConnected(timeout: .milliseconds(200))) == true
    }

    /// `chronyd --version`'s version number, or "?".
    private static func version(of chronyd: String) -> String {
        let output = "/tmp/netclock-bench-chronyd-version-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard let process = try? SpawnedProcess(chronyd, ["--version"], stdout: output, stderr: output),
            process.waitForExit(within: .seconds(5)),
            let text = try? String(contentsOfFile: output, encoding: .utf8)
        else { return "?" }
        return text.split(separator: " ").dropFirst(3).first.map(String.init) ?? "?"
    }
}
