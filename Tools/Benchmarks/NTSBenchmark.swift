import Foundation
import LoopbackServers
import NTSClient
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// A failure of `netclock-bench nts` that makes its figures meaningless.
struct NTSBenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `netclock-bench nts`: in one run, against two in-process loopback servers on 127.0.0.1 with the
/// same clock (+1.5 s) — a plain fake SNTP server and a fake NTS server (test CA certificate) — the
/// cost of NTS (RFC 8915) against plain SNTP, as ratios to plain baselines measured alternately:
///
/// 1. one NTS-protected exchange (an association from one key exchange done before timing, its
///    cookies refilled by the replies) vs one plain exchange;
/// 2. one NTS key exchange (TCP + TLS 1.3 + records + key export) vs the plain exchange;
/// 3. a first `NTSQuery` (fresh sessions: key exchange + 4-sample burst) and a second one (cookies
///    kept, right after the key exchange), and a query on sessions kept all run long (what a
///    client that syncs again does: its caches warm, no key exchange just before), vs a plain
///    4-sample burst, all with interval 0.
///
/// Each run is timed twice: on the wall (what a caller waits, the server's work and the loopback
/// included) and on the calling thread's CPU clock (`CLOCK_THREAD_CPUTIME_ID`: the client's own
/// work, since the servers run on threads of their own): the CPU ratios are what NTS costs the
/// client. Every sample's offset must lie within its error bound of the configured offset, and no
/// key exchange may happen during the exchange series; otherwise the table is printed and the run
/// fails.
func runNTSBenchmark() throws {
    let truth = Duration.milliseconds(1500)
    let certificates: TestCertificates
    do {
        certificates = try TestCertificates.require()
    } catch {
        throw NTSBenchmarkFailure("cannot make the test certificates for the loopback NTS server: \(error)")
    }
    let plainServer = try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: truth))
    defer { plainServer.stop() }
    let ntsServer = try FakeNTSServer(
        configuration: FakeNTSServer.Configuration(
            certificates: certificates, host: "127.0.0.1", offset: truth, behaviour: .normal))
    defer { ntsServer.stop() }
    guard let plainAddress = SocketAddress(numericHost: plainServer.host, port: plainServer.port) else {
        throw NTSBenchmarkFailure("no address for the plain server \(plainServer.host):\(plainServer.port)")
    }
    let keServer = ServerName(host: ntsServer.host, port: ntsServer.kePort)
    let trust = TLSClientConfiguration.TrustRoots.caFile(certificates.caFile)
    let bench = NTSBench(plainAddress: plainAddress, keServer: keServer, trust: trust)

    // 1. Per exchange: one association from a key exchange made before timing.
    let association = NTSAssociation(try bench.keyExchange())
    guard
        let ntpAddress = SocketAddress(numericHost: association.keys.ntpHost, port: association.keys.ntpPort)
    else {
        throw NTSBenchmarkFailure(
            "the NTS-KE response named an NTP server that is not a numeric address: \(association.keys.ntpHost)"
        )
    }
    for _ in 0..<20 {  // warm up
        _ = try bench.exchange(plainAddress, protection: nil)
        _ = try bench.exchange(ntpAddress, protection: NTSPacketProtection(association: association))
        _ = try bench.plainBurst()
    }
    for _ in 0..<5 { _ = try bench.ntsQueries() }
    // Sessions kept all run long: one key exchange here, before the count of planned ones starts.
    let kept = bench.query(sessions: NTSSessions())
    for expected in [1, 0, 0, 0, 0] { _ = try bench.timedQuery(kept, keyExchanges: expected) }

    // Every series is measured interleaved with its baseline, round by round, so that both see the
    // same load on this shared machine: each round is a plain and an NTS exchange (1.); every fifth
    // round also a key exchange (2.), and every fifth (shifted) a plain 4-sample burst and a first
    // and second NTS query (3.).
    let keBefore = ntsServer.statistics.keResponses
    let rounds = 500
    let everyNth = 5
    var plainExchange = NTSBenchSeries()
    var ntsExchange = NTSBenchSeries()
    var keyExchange = NTSBenchSeries()
    var plainBurst = NTSBenchSeries()
    var firstQuery = NTSBenchSeries()
    var secondQuery = NTSBenchSeries()
    var keptQuery = NTSBenchSeries()
    var fewestCookies = Int.max
    for round in 0..<rounds {
        plainExchange.add(try bench.exchange(plainAddress, protection: nil), truth: truth)
        // A protected exchange gives a sample only when its reply authenticated (else it throws).
        ntsExchange.add(
            try bench.exchange(ntpAddress, protection: NTSPacketProtection(association: association)),
            truth: truth)
        fewestCookies = min(fewestCookies, association.cookieCount)
        // The key exchanges and the queries fall in different rounds, so that none starts while
        // the server's single NTS-KE thread may still be closing the previous connection.
        if round % everyNth == 0 {
            let start = bench.clock.now()
            let cpu = threadCPUSeconds()
            _ = try bench.keyExchange()
            keyExchange.cpu.append(threadCPUSeconds() - cpu)
            keyExchange.times.append((bench.clock.now() - start).secondsDouble)
        } else if round % everyNth == everyNth / 2 {
            plainBurst.add(try bench.plainBurst(), truth: truth)
            let (first, second) = try bench.ntsQueries()
            firstQuery.add(first, truth: truth)
            secondQuery.add(second, truth: truth)
            keptQuery.add(try bench.timedQuery(kept, keyExchanges: 0), truth: truth)
        }
    }
    let statistics = ntsServer.statistics
    // The key exchanges the benchmark made itself (timed ones and first queries): any more would
    // mean the exchange series ran out of cookies and needed a new association.
    let planned = keyExchange.times.count + firstQuery.times.count
    let extraKeyExchanges = statistics.keResponses - keBefore - planned
    guard extraKeyExchanges == 0, fewestCookies >= 1 else {
        throw NTSBenchmarkFailure(
            "\(extraKeyExchanges) unplanned key exchanges; fewest cookies held after an exchange: \(fewestCookies)"
        )
    }

    let one = plainExchange.median
    let four = plainBurst.median
    let oneCPU = plainExchange.cpuMedian
    let fourCPU = plainBurst.cpuMedian
    var table = Table(header: [
        "measurement", "runs", "median (ms)", "p90 (ms)", "ratio", "baseline", "client CPU (ms)", "CPU ratio",
        "p90 |offset err| (ms)", "in bound",
    ])
    table.add(plainExchange.row("plain SNTP exchange", baseline: one, oneCPU, baselineName: "A (itself)"))
    table.add(ntsExchange.row("NTS exchange (association kept)", baseline: one, oneCPU, baselineName: "A"))
    table.add(
        keyExchange.row("NTS-KE (TCP+TLS 1.3+records+export)", baseline: one, oneCPU, baselineName: "A"))
    table.add(plainBurst.row("plain 4-sample burst", baseline: four, fourCPU, baselineName: "B (itself)"))
    table.add(
        firstQuery.row("NTSQuery 1st (fresh sessions: KE+4)", baseline: four, fourCPU, baselineName: "B"))
    table.add(secondQuery.row("NTSQuery 2nd (cookies kept: 4)", baseline: four, fourCPU, baselineName: "B"))
    table.add(keptQuery.row("NTSQuery, sessions kept (4)", baseline: four, fourCPU, baselineName: "B"))
    print("nts: NTS (RFC 8915) vs plain SNTP against in-process fake servers on 127.0.0.1, true offset")
    print("+1.500 s, interval 0, timeout 1 s; all series interleaved round by round. Ratios are medians over")
    print(
        "baseline A (one plain exchange) or B (a plain 4-sample burst). Server work runs on the same cores.")
    print(table.render())
    print(
        "cookies: \(rounds) NTS exchanges on one association (one key exchange before timing), fewest "
            + "cookies held after one: \(fewestCookies) of \(NTSAssociation.cookieTarget), unplanned key "
            + "exchanges: \(extraKeyExchanges);\n"
            + "server: \(statistics.keResponses) NTS-KE responses, \(statistics.authenticatedRequests) "
            + "authenticated requests, \(statistics.cookiesIssued) cookies issued, "
            + "\(statistics.rejectedTotal) rejected")
    let outside = [plainExchange, ntsExchange, plainBurst, firstQuery, secondQuery, keptQuery].reduce(0) {
        $0 + $1.outside
    }
    guard outside == 0 else {
        throw NTSBenchmarkFailure("\(outside) offsets lay outside their error bound of the configured offset")
    }
}
