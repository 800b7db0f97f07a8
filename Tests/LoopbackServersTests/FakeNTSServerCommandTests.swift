import Foundation
import LoopbackServers
import NTS
import SNTP
import Testing
import TimeValues

/// `fake-ntp-server --nts`: the options, and the command serving a real NTS exchange.
@Suite("fake-ntp-server --nts")
struct FakeNTSServerCommandTests {
    typealias Options = FakeNTPServer.CommandLineOptions

    @Test("--nts with --cert and --key makes an NTS configuration; the shared options carry over")
    func parsing() throws {
        let options = try Options.parse([
            "--nts", "--cert", "c.pem", "--key", "k.pem", "--nts-port", "14460", "--port", "11123",
            "--offset",
            "-2.5", "--host", "::1", "--stratum", "3",
        ])
        let configuration = try #require(options.ntsConfiguration)
        #expect(configuration.certificateChainFile == "c.pem")
        #expect(configuration.privateKeyFile == "k.pem")
        #expect(configuration.kePort == 14460)
        #expect(configuration.ntpPort == 11123)
        #expect(configuration.offset == .milliseconds(-2_500))
        #expect(configuration.host == "::1")
        #expect(configuration.stratum.rawValue == 3)
        #expect(configuration.behaviour == .normal)
        #expect(try Options.parse(["--offset", "1"]).ntsConfiguration == nil)
        for arguments in [
            ["--nts"], ["--nts", "--cert", "c.pem"], ["--cert", "c.pem", "--key", "k.pem"],
            ["--nts-port", "1"],
        ] {
            #expect(throws: FakeNTPServer.UsageError.self, "\(arguments)") {
                _ = try Options.parse(arguments)
            }
        }
        for option in ["--nts", "--cert FILE", "--key FILE", "--nts-port N"] {
            #expect(Options.help.contains(option), "help mentions \(option)")
        }
    }

    @Test(
        "the command prints both ports and serves NTS-KE and authenticated NTP with its offset",
        .enabled(
            if: commandPath != nil && TestCertificates.runnable,
            "the fake-ntp-server binary or openssl is missing"))
    func command() throws {
        let certificates = try TestCertificates.require()
        let command = try RunningCommand([
            "--nts", "--cert", certificates.serverCertificate, "--key", certificates.serverKey, "--offset",
            "-3",
            "--count", "1",
        ])
        let keLine = try #require(command.firstLine())
        let ntpLine = try #require(command.firstLine())
        #expect(keLine.hasPrefix("listening on 127.0.0.1:"))
        #expect(ntpLine.hasPrefix("ntp on 127.0.0.1:"))
        let kePort = try #require(keLine.split(separator: ":").last.flatMap { UInt16($0) })
        let ntpPort = try #require(ntpLine.split(separator: ":").last.flatMap { UInt16($0) })
        let exchange = try NTSTestClient.keyExchange(
            host: "127.0.0.1", port: kePort, caFile: certificates.caFile)
        let response = try exchange.parsed.get()
        #expect(response.port == ntpPort)
        let query = try NTSTestClient.query(
            host: "127.0.0.1", port: ntpPort, cookie: response.cookies[0], c2s: exchange.c2s)
        let header = try NTSTestClient.verifiedCookies(query.reply, s2c: exchange.s2c).packet.header
        let theta = ((header.receiveTimestamp - query.t1) + (header.transmitTimestamp - query.t4)) / 2
        let delta = (query.t4 - query.t1) - (header.transmitTimestamp - header.receiveTimestamp)
        let target = Duration.seconds(-3)
        let error = theta > target ? theta - target : target - theta
        let bound: Duration = delta / 2 + Duration.microseconds(1)
        #expect(error <= bound, "θ \(theta), δ \(delta)")
        // --count 1: one authenticated request, then the command exits 0.
        #expect(command.exitStatus() == 0)
    }
}
