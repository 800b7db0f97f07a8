import Foundation
import LoopbackServers
import Roughtime
import Testing
import WallClockReference

/// `fake-roughtime-server`: its options, and the command serving real clients.
@Suite(.wallClockReference) struct FakeRoughtimeServerCommandTests {
    typealias Options = FakeRoughtimeServer.CommandLineOptions

    /// The built command, beside the test bundle.
    static let commandPath = TestExecutables.builtProduct("fake-roughtime-server")

    @Test func behaviourNamesRoundTrip() {
        for behaviour in FakeRoughtimeServer.Behaviour.allCases {
            #expect(FakeRoughtimeServer.Behaviour(name: behaviour.name) == behaviour)
            #expect(behaviour.name == behaviour.name.lowercased())
            #expect(Options.help.contains(behaviour.name))
        }
        #expect(FakeRoughtimeServer.Behaviour.badResponseSignature.name == "bad-response-signature")
        #expect(FakeRoughtimeServer.Behaviour(name: "nonsense") == nil)
    }

    @Test func parsing() throws {
        let seed = Base64.encode((1...32).map { UInt8($0) })
        let options = try Options.parse([
            "--host", "::1", "--port", "2002", "--seed", seed, "--offset", "-3600", "--radius", "5",
            "--versions", "rfc,draft-11,google", "--batch-window", "25", "--delay", "10", "--behaviour",
            "wrong-merkle-path",
            "-v",
        ])
        let configuration = options.configuration
        #expect(configuration.host == "::1")
        #expect(configuration.port == 2002)
        #expect(configuration.longTermKey.seed == (1...32).map { UInt8($0) })
        #expect(configuration.offset == .seconds(-3600))
        #expect(configuration.radius == .seconds(5))
        #expect(configuration.versions == [.rfc, .draft(11), .google])
        #expect(configuration.batchWindow == .milliseconds(25))
        #expect(configuration.replyDelay == .milliseconds(10))
        #expect(configuration.behaviour == .wrongMerklePath)
        #expect(options.verbose)
        #expect(try Options.parse(["-h"]).showHelp)
        for arguments in [
            ["--host", "192.0.2.1"], ["--port", "70000"], ["--seed", "AAAA"], ["--versions", "draft-7"],
            ["--behaviour", "nice"], ["--offset"], ["--what"],
        ] {
            #expect(throws: FakeNTPServer.UsageError.self, "\(arguments)") {
                _ = try Options.parse(arguments)
            }
        }
    }

    @Test(.enabled(if: commandPath != nil, "the fake-roughtime-server binary is not built"))
    func commandServesOurClient() throws {
        let directory = try RoughlyPeer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outputPath = directory + "/out"
        let process = try SpawnedProcess(
            try #require(Self.commandPath), ["--offset", "60", "--versions", "rfc"],
            stdout: outputPath, stderr: outputPath)
        var output: String { PeerFailure.contents(of: outputPath) }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while !output.contains("public key "), clock.now < deadline, process.isRunning {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let lines = output.split(separator: "\n").map(String.init)
        let address = try #require(lines.first { $0.hasPrefix("listening on ") }?.dropFirst(13))
        let key = try #require(
            lines.first { $0.hasPrefix("public key ") }.flatMap { Base64.decode(String($0.dropFirst(11))) })
        #expect(address.hasPrefix("127.0.0.1:"))
        let result = RoughtimeClient().query([
            RoughtimeServer(name: "command", address: String(address), publicKey: key)
        ])
        let agreement = try result.agreedTime()
        #expect(agreement.offsets.contains(.seconds(60)), "\(result)")
        #expect(!agreement.offsets.contains(.zero))
        process.terminate()
        #expect(process.exitStatus == 0, "SIGTERM ends it cleanly")
    }
}
