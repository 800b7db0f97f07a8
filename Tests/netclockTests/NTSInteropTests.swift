import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// `netclock query --nts` against a real NTS server, chronyd (``ChronyNTSServer``), on loopback.
///
/// Written against the CLI contract scripts depend on:
/// `netclock query --nts --ca-file CA [--json] SERVER...`, where SERVER is `host` or `host:port` of
/// the NTS-KE server (default port 4460) and the NTP host and port come from the NTS-KE response.
/// `--json` adds, at the top level, `authenticated` (true/false) and, in each per-server object,
/// `authenticated` and `nts`: `{"ke_server": NTS-KE address, "ntp_server": NTP address used,
/// "aead": 15, "cookies": cookies held}` (addresses as `host:port`, IPv6 as `[addr]:port`, like
/// `address`).
///
/// Both ends read the same clock: |offset| < 1 ms (InteropTests' shared-clock tolerance). chronyd's
/// own counters (`serverstats`) confirm from the server's side that the samples were authenticated.
/// A missing chronyd or openssl skips with the reason; with `NETCLOCK_REQUIRE_PEERS=1` it fails.
@Suite(.serialized, .wallClockReference)
struct NTSInteropTests {
    static let toolsMissing = ChronyNTSServer.toolsMissing
    static var runnable: Bool { ChronyNTSServer.runnable }

    /// `host:port` as the CLI prints an address: IPv6 in brackets.
    static func address(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Runs `netclock query --nts --ca-file CA [--json] --interval 0 SERVER`.
    static func query(_ server: String, caFile: String, json: Bool = true) async throws -> CLIRunner.Output {
        try await CLIRunner.run(
            ["query", "--nts", "--ca-file", caFile] + (json ? ["--json"] : []) + ["--interval", "0", server],
            timeout: 30)
    }

    /// The one per-server object of an authenticated `--json` result, checked against the contract:
    /// exit 0, `authenticated` true at the top and for the server, |offset| < 1 ms, every sample
    /// accepted, an `nts` object with AEAD 15 and cookies, and as many authenticated NTP packets
    /// counted by chronyd as samples accepted. Returns the `nts` object.
    static func expectAuthenticated(
        _ output: CLIRunner.Output, server: ChronyNTSServer, host: String, statsBefore: [String: Int],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        #expect(output.status == 0, "stderr: \(output.stderr)", sourceLocation: sourceLocation)
        let json = try output.json()
        #expect(
            json["authenticated"] as? Bool == true, "stdout: \(output.stdout)", sourceLocation: sourceLocation
        )
        let offset = try #require(
            json["offset"] as? Double, "stdout: \(output.stdout)", sourceLocation: sourceLocation)
        let bound = try #require(
            json["error_bound"] as? Double, "stdout: \(output.stdout)", sourceLocation: sourceLocation)
        InteropTests.note("netclock query --nts \(host): offset \(offset) s ± \(bound) s")
        #expect(
            abs(offset) <= bound, "offset \(offset) s ± \(bound) s: the truth (0) outside",
            sourceLocation: sourceLocation)
        let servers = try #require(json["servers"] as? [[String: Any]], sourceLocation: sourceLocation)
        #expect(servers.count == 1, sourceLocation: sourceLocation)
        let entry = try #require(servers.first, sourceLocation: sourceLocation)
        #expect(entry["host"] as? String == host, "\(entry)", sourceLocation: sourceLocation)
        #expect(entry["status"] as? String == "selected", "\(entry)", sourceLocation: sourceLocation)
        #expect(entry["authenticated"] as? Bool == true, "\(entry)", sourceLocation: sourceLocation)
        #expect(entry["stratum"] as? Int == 8, "\(entry)", sourceLocation: sourceLocation)
        let samples = try #require(entry["samples"] as? [[String: Any]], sourceLocation: sourceLocation)
        let accepted = samples.filter { $0["accepted"] as? Bool == true }.count
        #expect(
            accepted >= 1 && accepted == samples.count, "samples: \(samples)", sourceLocation: sourceLocation)
        let nts = try #require(
            entry["nts"] as? [String: Any], "no nts object in \(entry)", sourceLocation: sourceLocation)
        #expect(nts["aead"] as? Int == 15, "\(nts)", sourceLocation: sourceLocation)
        let cookies = try #require(nts["cookies"] as? Int, "\(nts)", sourceLocation: sourceLocation)
        // chronyd hands out 8 and returns one for each it receives.
        #expect((1...8).contains(cookies), "\(nts)", sourceLocation: sourceLocation)

        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        let stats = try server.serverStatistics(chronyc: chronyc)
        let authenticated = ChronyNTSServer.increase(
            of: "Authenticated NTP packets", from: statsBefore, to: stats)
        #expect(
            authenticated >= accepted, "before \(statsBefore), after \(stats)", sourceLocation: sourceLocation
        )
        #expect(
            ChronyNTSServer.increase(of: "NTS-KE connections accepted", from: statsBefore, to: stats) >= 1,
            "before \(statsBefore), after \(stats)", sourceLocation: sourceLocation)
        return nts
    }

    // (a) IPv4, by address and by name.
    @Test(.enabled(if: runnable, toolsMissing), arguments: ["127.0.0.1", "localhost"])
    func queryOverIPv4(host: String) async throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        try await ChronyNTSServer.with { server in
            let before = try server.serverStatistics(chronyc: chronyc)
            let name = "\(host):\(server.ntsPort)"
            let output = try await Self.query(name, caFile: server.caFile)
            let nts = try Self.expectAuthenticated(output, server: server, host: name, statsBefore: before)
            // `localhost` may resolve to ::1 first where /etc/hosts says so (and chronyd listens there).
            let keHosts = host == "localhost" && server.ipv6 ? ["127.0.0.1", "::1"] : ["127.0.0.1"]
            let keServer = try #require(nts["ke_server"] as? String, "\(nts)")
            #expect(keHosts.map { Self.address($0, server.ntsPort) }.contains(keServer), "\(nts)")
            // No NTP server record: the NTP server is the NTS-KE server's address (RFC 8915 §4) on the
            // port chronyd names (record type 7).
            let keHost = keHosts.first { Self.address($0, server.ntsPort) == keServer } ?? "127.0.0.1"
            #expect(nts["ntp_server"] as? String == Self.address(keHost, server.ntpPort), "\(nts)")
        }
    }

    // (b) IPv6.
    @Test(
        .enabled(if: runnable, toolsMissing),
        .enabled(if: InteropTool.canBindOrRequired(host: "::1", port: 0), InteropTool.noIPv6Loopback))
    func queryOverIPv6() async throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        let probe = LoopbackPorts.bindProbe(host: "::1", port: 0)
        try #require(probe == 0, "cannot bind UDP on ::1 (errno \(probe)): no IPv6 loopback")
        try await ChronyNTSServer.with(ipv6: true) { server in
            let before = try server.serverStatistics(chronyc: chronyc)
            let name = "[::1]:\(server.ntsPort)"
            let output = try await Self.query(name, caFile: server.caFile)
            let nts = try Self.expectAuthenticated(output, server: server, host: name, statsBefore: before)
            #expect(nts["ke_server"] as? String == "[::1]:\(server.ntsPort)", "\(nts)")
            #expect(nts["ntp_server"] as? String == "[::1]:\(server.ntpPort)", "\(nts)")
        }
    }

    // (c) `ntsntpserver 127.0.0.1`: the NTP server comes from the NTS-KE response (record type 6).
    @Test(.enabled(if: runnable, toolsMissing))
    func queryUsesTheAdvertisedNTPServer() async throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        try await ChronyNTSServer.with(ntpServer: "127.0.0.1") { server in
            let before = try server.serverStatistics(chronyc: chronyc)
            let name = "localhost:\(server.ntsPort)"
            let output = try await Self.query(name, caFile: server.caFile)
            let nts = try Self.expectAuthenticated(output, server: server, host: name, statsBefore: before)
            #expect(nts["ntp_server"] as? String == "127.0.0.1:\(server.ntpPort)", "\(nts)")
        }
    }

    /// (c) where the advertised NTP host differs from the NTS-KE host: keys from [::1], time from
    /// 127.0.0.1, so only the record can have named it.
    @Test(
        .enabled(if: runnable, toolsMissing),
        .enabled(if: InteropTool.canBindOrRequired(host: "::1", port: 0), InteropTool.noIPv6Loopback))
    func queryUsesTheAdvertisedNTPServerOfAnotherFamily() async throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        try await ChronyNTSServer.with(ntpServer: "127.0.0.1", ipv6: true) { server in
            let before = try server.serverStatistics(chronyc: chronyc)
            let name = "[::1]:\(server.ntsPort)"
            let output = try await Self.query(name, caFile: server.caFile)
            let nts = try Self.expectAuthenticated(output, server: server, host: name, statsBefore: before)
            #expect(nts["ke_server"] as? String == "[::1]:\(server.ntsPort)", "\(nts)")
            #expect(nts["ntp_server"] as? String == "127.0.0.1:\(server.ntpPort)", "\(nts)")
        }
    }

    // (d) A CA that did not sign chronyd's certificate: the self-signed certificate as the only CA.
    @Test(.enabled(if: runnable, toolsMissing))
    func untrustedCertificateFails() async throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        try await ChronyNTSServer.with { server in
            let before = try server.serverStatistics(chronyc: chronyc)
            let output = try await Self.query(
                "127.0.0.1:\(server.ntsPort)", caFile: server.certificates.selfSignedCertificate, json: false)
            #expect(output.status == 1, "stdout: \(output.stdout)\nstderr: \(output.stderr)")
            #expect(output.stderr.lowercased().contains("certificate"), "stderr: \(output.stderr)")
            #expect(!output.stdout.contains("offset"), "no offset printed: \(output.stdout)")
            let stats = try server.serverStatistics(chronyc: chronyc)
            #expect(
                stats["Authenticated NTP packets"] == before["Authenticated NTP packets"],
                "before \(before), after \(stats)")
        }
    }

    // (e) The text output marks the source as authenticated.
    @Test(.enabled(if: runnable, toolsMissing))
    func textOutputMarksTheSourceAuthenticated() async throws {
        try await ChronyNTSServer.with { server in
            let output = try await Self.query(
                "127.0.0.1:\(server.ntsPort)", caFile: server.caFile, json: false)
            #expect(output.status == 0, "stderr: \(output.stderr)")
            let lines = output.stdout.split(separator: "\n")
            let sourceLine = try #require(
                lines.first { !$0.hasPrefix("time ") && $0.contains("offset") }, "stdout: \(output.stdout)")
            #expect(
                sourceLine.contains("NTS") || sourceLine.contains("authenticated"),
                "the source line names NTS: \(sourceLine)")
            let offset = try #require(
                PrintedDuration.seconds(after: "offset", in: sourceLine), "\(sourceLine)")
            let bound = try #require(PrintedDuration.bound(in: sourceLine), "\(sourceLine)")
            #expect(abs(offset) <= bound + 1e-6, "the truth (0) outside: \(sourceLine)")
        }
    }
}

extension NTSInteropTests {
    /// `sync --nts --state FILE` twice: the first run's keys and unused cookies are kept beside the
    /// anchor (`FILE.nts`, mode 0600), so the second run makes no key exchange (chronyd counts no
    /// new NTS-KE connection) and is still authenticated; `now` then says so from the file.
    @Test(.enabled(if: runnable, toolsMissing))
    func aSecondSyncSpendsTheKeptCookiesInsteadOfANewKeyExchange() async throws {
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netclock-nts-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/anchor.json"
        try await ChronyNTSServer.with { server in
            let name = "127.0.0.1:\(server.ntsPort)"
            func sync() async throws -> CLIRunner.Output {
                try await CLIRunner.run(
                    [
                        "sync", "--nts", "--ca-file", server.caFile, "--json", "--interval", "0", "--samples",
                        "2",
                        "--state", state, name,
                    ], timeout: 30)
            }
            let first = try await sync()
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let firstNTS = try #require(
                (try first.json()["servers"] as? [[String: Any]])?.first?["nts"] as? [String: Any])
            #expect(firstNTS["key_exchanges"] as? Int == 1, "\(firstNTS)")
            let attributes = try FileManager.default.attributesOfItem(atPath: state + ".nts")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            let before = try server.serverStatistics(chronyc: chronyc)
            let second = try await sync()
            #expect(second.status == 0, "stderr: \(second.stderr)")
            let json = try second.json()
            #expect(json["authenticated"] as? Bool == true)
            let nts = try #require((json["servers"] as? [[String: Any]])?.first?["nts"] as? [String: Any])
            #expect(nts["key_exchanges"] as? Int == 0, "\(nts)")
            let after = try server.serverStatistics(chronyc: chronyc)
            #expect(ChronyNTSServer.increase(of: "NTS-KE connections accepted", from: before, to: after) == 0)
            #expect(ChronyNTSServer.increase(of: "Authenticated NTP packets", from: before, to: after) >= 2)

            let now = try await CLIRunner.run(["now", "--state", state, "--json"], timeout: 10)
            #expect(try now.json()["authenticated"] as? Bool == true, "\(now.stdout)")

            // A damaged cookie file (private, as a kept one is) costs one key exchange, nothing else.
            try "{not json".write(toFile: state + ".nts", atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: state + ".nts")
            let third = try await sync()
            #expect(third.status == 0, "stderr: \(third.stderr)")
            let thirdNTS = try #require(
                (try third.json()["servers"] as? [[String: Any]])?.first?["nts"] as? [String: Any])
            #expect(thirdNTS["key_exchanges"] as? Int == 1, "\(thirdNTS)")
        }
    }
}
