import Foundation
import NetClockPlatform
import LoopbackServers
import Roughtime
import SNTP
import Testing
import TimeValues
import WallClockReference

/// Interoperability with `roughly` (PyPI 0.3.0), an independent Roughtime client and server, both
/// ways: our client against `roughly server run`, `roughly query` and `roughly ecosystem
/// malfeasance` against our fake server, and each side's malfeasance reports checked by the other.
///
/// The servers run on this machine's clock, so "the truth" is the local wall clock: an honest
/// server's signed interval (±3 s, `roughly`'s default radius) must contain it, and so must the
/// agreed interval.
@Suite(
    .enabled(if: RoughlyPeer.runnable, RoughlyPeer.skipReason), .serialized, .wallClockReference,
    .roughlyServers)
struct RoughlyInteropTests {
    /// Writes a server list of `entries` to a file in `directory`.
    static func ecosystem(_ entries: [String], in directory: String) throws -> String {
        let path = directory + "/ecosystem.json"
        try "{\"servers\": [\(entries.joined(separator: ",\n"))]}".write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func servers(fromEcosystem path: String) throws -> [RoughtimeServer] {
        try RoughtimeEcosystem(json: Array(try Data(contentsOf: URL(fileURLWithPath: path)))).servers
    }

    @Test func ourClientAgainstTwoRoughlyServers() throws {
        let honest = try RoughlyServers.require().honest
        let (first, second) = (honest[0], honest[1])
        let directory = try RoughlyPeer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let servers = try Self.servers(
            fromEcosystem: try Self.ecosystem([first.ecosystemEntry, second.ecosystemEntry], in: directory))
        let result = RoughtimeClient().query(servers)
        let agreement = try result.agreedTime()
        // The servers' clock is this machine's: the agreed offset from it must contain zero.
        #expect(agreement.offsets.contains(.zero), "\(result)")
        #expect(agreement.interval.radius <= .seconds(4), "3 s radius + loopback round trips: \(result)")
        #expect(result.servers.map(\.status) == [.agreed, .agreed])
        #expect(result.servers.allSatisfy { $0.version == .rfc && $0.validReplies == 2 })
        #expect(result.servers.allSatisfy { ($0.roundTrip ?? .seconds(1)) < .milliseconds(500) })
        #expect(result.liars.isEmpty)
        #expect(result.malfeasanceReport == nil)
    }

    @Test func ourClientSpeaksEveryVersionRoughlyServes() throws {
        let server = try RoughlyServers.require().honest[0]
        var options = RoughtimeClient.Options()
        options.passes = 1
        for version in (10...15).map({ RoughtimeVersion.draft($0) }) + [.google] {
            var target = server.server
            target.versions = [version]
            let result = RoughtimeClient().query([target], options: options)
            let report = try #require(result.servers.first)
            #expect(report.version == version, "\(version): \(result)")
            #expect(try result.agreedTime().offsets.contains(.zero), "\(version): \(result)")
        }
    }

    @Test(
        .enabled(
            if: LibFaketime.path != nil || RoughlyPeer.peersRequired,
            "libfaketime is not installed (apt-get install -y faketime); NETCLOCK_REQUIRE_PEERS=1 makes this fail"
        ))
    func aValidlySignedLiarIsNamedAndRoughlyConfirmsOurReport() async throws {
        let peers = try RoughlyServers.require()
        // Asked last, so only the second pass can catch it.
        let (honest, liar) = (peers.honest, try peers.requireLiar())
        let directory = try RoughlyPeer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let servers = try Self.servers(
            fromEcosystem: try Self.ecosystem((honest + [liar]).map(\.ecosystemEntry), in: directory))
        let result = try await BlockingCases.onThread { RoughtimeClient().query(servers) }
        let agreement = try result.agreedTime()
        #expect(agreement.offsets.contains(.zero), "\(result)")
        #expect(agreement.agreeing == [0, 1])
        #expect(result.liars == ["roughly-\(liar.port)"])
        let liarMidpoint = try #require(result.servers[2].midpoint)
        let lead = liarMidpoint - SystemWallClock().now()
        #expect(lead > .seconds(3590) && lead < .seconds(3610), "the liar is an hour ahead: \(lead)")
        let report = try #require(result.malfeasanceReport, "\(result)")
        #expect(report.entries.count == 6)
        #expect(try !report.contradictions().isEmpty)
        let files = [("list.json", report.listJSON), ("rfc.json", report.rfcJSON)]
        for (name, json) in files {
            try json.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        // Two Python runs that only read their file: at once.
        let confirmations = try await BlockingCases.run(files.map(\.0), lanes: files.count) { name in
            try RoughlyPeer.confirmMalfeasance(directory + "/" + name)
        }
        #expect(confirmations.count == files.count)
        for (name, (confirmed, output)) in confirmations {
            #expect(confirmed, "roughly.ecosystem.confirm_malfeasance(\(name)): \(output)")
        }
    }

    /// `roughly query HOST PORT KEY` against `servers`, each once, in one Python process.
    static func roughlyQueries(_ servers: [FakeRoughtimeServer], terse: Bool) throws -> [String] {
        try RoughlyPeer.runInOneProcess(
            servers.map { server in
                ["query"] + (terse ? ["--terse"] : []) + [
                    "--timeout", "5", server.host, "\(server.port)", Base64.encode(server.publicKey),
                ]
            })
    }

    /// One fake server for each version, all asked by one `roughly` process; every message names its
    /// version.
    @Test("roughly query accepts our fake server's replies")
    func roughlyQueryAgainstOurFake() throws {
        let versions = [RoughtimeVersion.rfc] + (10...15).map { RoughtimeVersion.draft($0) }
        let servers = try versions.map { version in
            var configuration = try FakeRoughtimeServer.Configuration(offset: .seconds(120))
            configuration.versions = [version]
            return try FakeRoughtimeServer(configuration: configuration)
        }
        defer { for server in servers { server.stop() } }
        let outputs = try Self.roughlyQueries(servers, terse: true)
        // The fakes' clock just after `roughly` printed what it read from them.
        let fakeClock = SystemWallClock().now().seconds + 120
        for (version, (server, output)) in zip(versions, zip(servers, outputs)) {
            let printed = try #require(
                Int64(output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(version): \(output)")
            #expect(
                abs(printed - fakeClock) <= 2,
                "\(version): roughly printed \(printed), the fake's clock is \(fakeClock)")
            #expect(server.statistics.repliesByVersion[version] == 1, "\(version)")
        }
    }

    /// As above, one fake server for each hostile behaviour.
    @Test("roughly query refuses our fake server's hostile replies")
    func roughlyRefusesHostileReplies() throws {
        let behaviours: [FakeRoughtimeServer.Behaviour] = [
            .badResponseSignature, .badDelegationSignature, .wrongMerklePath, .expiredDelegation,
        ]
        let servers = try behaviours.map { behaviour in
            try FakeRoughtimeServer(
                configuration: try FakeRoughtimeServer.Configuration(behaviour: behaviour))
        }
        defer { for server in servers { server.stop() } }
        let outputs = try Self.roughlyQueries(servers, terse: false)
        for (behaviour, output) in zip(behaviours, outputs) {
            #expect(!output.contains("Current time"), "\(behaviour): \(output)")
            #expect(output.contains("rejected during verification"), "\(behaviour): \(output)")
        }
    }

    @Test func roughlyFindsOurFakeLiarAndWeConfirmItsReport() throws {
        let honest = try (0..<2).map { _ in try FakeRoughtimeServer(configuration: try .init()) }
        let liar = try FakeRoughtimeServer(configuration: try .init(offset: .seconds(-3600)))
        defer { for server in honest + [liar] { server.stop() } }
        let directory = try RoughlyPeer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entries = (honest + [liar]).enumerated().map { index, server in
            """
            {"name": "fake-\(index)", "version": 1, "publicKeyType": "ed25519", "publicKey": "\(Base64.encode(server.publicKey))",
             "addresses": [{"protocol": "udp", "address": "\(server.hostAndPort)"}]}
            """
        }
        let ecosystem = try Self.ecosystem(entries, in: directory)
        let reportPath = directory + "/report.json"
        let result = try RoughlyPeer.run([
            "ecosystem", "malfeasance", "--ecosystem-path", ecosystem, "--report-location", reportPath,
        ])
        #expect(result.output.contains("Malfeasance detected"), "\(result.output)")
        let report = try RoughtimeMalfeasanceReport(
            json: Array(try Data(contentsOf: URL(fileURLWithPath: reportPath))))
        #expect(report.entries.count == 3)
        #expect(
            try report.contradictions().map(\.later) == [2, 2], "the liar (an hour behind) is asked last")
        // And our client, on the same list.
        let ours = RoughtimeClient().query(try Self.servers(fromEcosystem: ecosystem))
        #expect(ours.liars == ["fake-2"])
    }
}
