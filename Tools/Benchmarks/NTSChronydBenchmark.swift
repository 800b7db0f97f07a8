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
/// chronyd runs as the tests run it (``ChronyServer``: `-x`, so it never touches this machine's
/// clock; on 127.0.0.1 only; stopped by its pid). The series, interleaved round by round, each
/// pair in both orders alternately: one plain exchange and one NTS exchange on a kept association
/// (baseline A), and two rounds in five a plain 4-sample burst and an `NTSQuery` on sessions kept
/// all run long (baseline B).
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
    let server: ChronyServer
    do {
        server = try ChronyServer.start(
            chronyd: chronyd,
            nts: ChronyServer.NTS(certificate: certificates.serverCertificate, key: certificates.serverKey))
    } catch {
        throw NTSBenchmarkFailure("chronyd did not serve NTP and NTS-KE on loopback: \(error)")
    }
    defer { server.stop() }
    guard let plainAddress = SocketAddress(numericHost: "127.0.0.1", port: server.port),
        let ntsPort = server.ntsPort
    else {
        throw NTSBenchmarkFailure("no NTP address or NTS-KE port for chronyd")
    }
    let bench = NTSBench(
        plainAddress: plainAddress, keServer: ServerName(host: "127.0.0.1", port: ntsPort),
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
        // Each pair in both orders, alternately (ABBA): whichever runs second finds the caches the
        // first one warmed, so a fixed order would favour one series.
        let plainFirst = round % 2 == 0
        let nts = {
            try bench.exchange(ntpAddress, protection: NTSPacketProtection(association: association))
        }
        if !plainFirst { ntsExchange.add(try nts(), truth: truth) }
        plainExchange.add(try bench.exchange(plainAddress, protection: nil), truth: truth)
        if plainFirst { ntsExchange.add(try nts(), truth: truth) }
        if round % 5 == 2 || round % 5 == 3 {
            if !plainFirst { keptQuery.add(try bench.timedQuery(kept, keyExchanges: 0), truth: truth) }
            plainBurst.add(try bench.plainBurst(), truth: truth)
            if plainFirst { keptQuery.add(try bench.timedQuery(kept, keyExchanges: 0), truth: truth) }
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
        "nts-chronyd: NTS (RFC 8915) vs plain NTP against one chronyd \(chronydVersion(chronyd)) on 127.0.0.1 serving both"
    )
    print(
        "(chronyd -x: this machine's clock untouched); interval 0, timeout 1 s; series interleaved round by")
    print("round, each pair in both orders alternately; ratios are medians over baseline A (one plain")
    print("exchange) or B (a plain 4-sample burst).")
    print(table.render())
    let outside = [plainExchange, ntsExchange, plainBurst, keptQuery].reduce(0) { $0 + $1.outside }
    guard outside == 0 else {
        throw NTSBenchmarkFailure("\(outside) offsets lay outside their error bound of chronyd's clock")
    }
}

/// `chronyd --version`'s version number, or "?".
private func chronydVersion(_ chronyd: String) -> String {
    let output = "/tmp/netclock-bench-chronyd-version-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: output) }
    guard let process = try? SpawnedProcess(chronyd, ["--version"], stdout: output, stderr: output),
        process.waitForExit(within: .seconds(5)),
        let text = try? String(contentsOfFile: output, encoding: .utf8)
    else { return "?" }
    return text.split(separator: " ").dropFirst(3).first.map(String.init) ?? "?"
}
