import Foundation
import LoopbackServers
import NetClockPlatform
import Roughtime

/// The loopback servers every soak scenario talks to, all started once: NTP, a silent NTP server
/// (for the fallback), NTS, Roughtime, HTTP and HTTPS (with the test CA's certificate for
/// `localhost`). Their clocks are 1.5 s ahead of this machine's, so a round that got no time
/// cannot pass for one that did.
final class SoakServers: Sendable {
    let ntp: FakeNTPServer
    let silent: FakeNTPServer
    let nts: FakeNTSServer
    let roughtime: FakeRoughtimeServer
    let http: HTTPTimeServer
    let https: HTTPTimeServer
    let certificates: TestCertificates
    /// The Roughtime server list (`--roughtime FILE`).
    let roughtimeList: String

    static let offset = Duration.milliseconds(1_500)

    init() throws {
        certificates = try TestCertificates.require()
        ntp = try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: Self.offset))
        var silence = FakeNTPServer.Configuration(offset: Self.offset)
        silence.behaviour = .noReply
        silent = try FakeNTPServer(configuration: silence)
        nts = try FakeNTSServer(
            configuration: FakeNTSServer.Configuration(certificates: certificates, offset: Self.offset))
        roughtime = try FakeRoughtimeServer(
            configuration: FakeRoughtimeServer.Configuration(offset: Self.offset))
        let clock = HTTPTimeServer.Configuration(offset: Self.offset)
        http = try HTTPTimeServer(configuration: clock)
        https = try HTTPTimeServer(configuration: clock, tls: HTTPSTimeServerTLS(certificates))
        roughtimeList =
            FileManager.default.temporaryDirectory.path + "/netclock-soak-\(getpid())-roughtime.json"
        let entry: [String: Any] = [
            "name": "soak", "version": 1, "publicKeyType": "ed25519",
            "publicKey": Data(roughtime.publicKey).base64EncodedString(),
            "addresses": [["protocol": "udp", "address": roughtime.hostAndPort]],
        ]
        try JSONSerialization.data(withJSONObject: ["servers": [entry]]).write(
            to: URL(fileURLWithPath: roughtimeList))
    }

    func stop() {
        unlink(roughtimeList)
        for server in [ntp, silent] { server.stop() }
        nts.stop()
        roughtime.stop()
        for server in [http, https] { server.stop() }
    }

    /// The scenarios: each source kind through the CLI's `watch`, and the library's refresh.
    func runs(netclock: String, soak: String, rounds: Int) -> [SoakRun] {
        let every = ["--every", "0.5"]
        let secure = https.url(hostName: "localhost")
        func watch(_ name: String, _ arguments: [String], rounds: Int = rounds) -> SoakRun {
            SoakRun(
                name: name, executable: netclock,
                arguments: ["watch"] + arguments + ["--count", "\(rounds)"] + every, rounds: rounds,
                timeout: .seconds(60 + 12 * rounds))
        }
        func refresh(_ name: String, _ sources: [String]) -> SoakRun {
            SoakRun(
                name: name, executable: soak, arguments: ["refresh-client", "\(rounds)"] + sources,
                rounds: rounds,
                timeout: .seconds(60 + 12 * rounds))
        }
        return [
            watch("ntp", ["\(ntp.host):\(ntp.port)", "--samples", "4", "--interval", "0"]),
            // NTS servers are asked at most once every 8 s (etiquette): fewer rounds.
            watch(
                "nts", ["--nts", "\(nts.host):\(nts.kePort)", "--ca-file", certificates.caFile],
                rounds: max(2, rounds / 3)),
            watch("roughtime", ["--roughtime", roughtimeList]),
            watch("http", ["--http-only", "--http", http.urlString]),
            watch("https", ["--http-only", "--http", secure, "--ca-file", certificates.caFile]),
            watch(
                "fallback",
                [
                    "\(silent.host):\(silent.port)", "--samples", "2", "--interval", "0.3", "--timeout",
                    "0.3",
                    "--http", http.urlString,
                ]),
            refresh("refresh-http", [http.urlString]),
            refresh("refresh-ntp", ["\(ntp.host):\(ntp.port)"]),
        ]
    }
}
