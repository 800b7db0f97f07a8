import Foundation
import LoopbackServers
import NetClockPlatform
import NetworkClock
import SNTP
import Testing
import TimeValues
import WallClockReference

/// `--http`, `--http-only` and the HTTP part of the JSON report, end to end.
@Suite(.serialized, .wallClockReference)
struct HTTPCLITests {
    @Test func httpOnlyWithAMillisecondHeader() async throws {
        let server = try HTTPTimeServer(
            configuration: HTTPTimeServer.Configuration(
                offset: .milliseconds(2300), timestampHeaderName: "X-Server-Time-Ms"))
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "query", "--http", server.urlString, "--http-only", "--http-header", "X-Server-Time-Ms", "--json",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let json = try output.json()
        #expect(json["source"] as? String == "http")
        // The truth (+2.3 s) within the bound: the header's 1 ms resolution and the round trip.
        let offset = try #require(json["offset"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        #expect(abs(offset - 2.3) <= bound, "offset \(offset) ± \(bound)")
        #expect(bound < 0.05, "a loopback round trip and 1 ms of resolution: \(bound)")
        #expect((json["servers"] as? [Any])?.isEmpty == true, "--http-only sends no NTP")
        let http = try #require((json["http"] as? [[String: Any]])?.first)
        #expect(http["status"] as? String == "selected")
        #expect(http["kind"] as? String == "X-Server-Time-Ms")
        let requests = try #require(http["requests"] as? [[String: Any]])
        #expect(requests.count >= 1 && requests.count <= 8)
        for request in requests {
            let interval = try #require(request["interval"] as? [Double])
            #expect(interval.count == 2 && interval[0] <= 2.3 + 0.001 && interval[1] >= 2.3 - 0.001)
            #expect(request["method"] as? String == "HEAD")
        }
        #expect(server.requests.count == requests.count)
    }

    /// NTP silent, the HTTP URL gives the time. The millisecond header: one request, where the
    /// `Date` refinement's 2–4 s of waits would prove nothing more about the fallback (the refinement
    /// has its own tests: HTTPDateRefinerTests, HTTPMeasurementCoreResponseTests).
    @Test func silentNTPFallsBackToHTTP() async throws {
        var configuration = FakeNTPServer.Configuration()
        configuration.behaviour = .noReply
        let ntp = try FakeNTPServer(configuration: configuration)
        defer { ntp.stop() }
        let server = try HTTPTimeServer(
            configuration: HTTPTimeServer.Configuration(
                offset: .milliseconds(-1700), timestampHeaderName: "X-Server-Time-Ms"))
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "query", "127.0.0.1:\(ntp.port)", "--interval", "0", "--samples", "1", "--timeout", "0.3",
            "--http", server.urlString, "--http-header", "X-Server-Time-Ms",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.first?.contains("timeout") == true)
        #expect(lines.contains { $0.hasPrefix(server.urlString) && $0.contains("selected") })
        #expect(lines.last?.contains("(http, \(server.urlString))") == true)
    }

    @Test func aBrokenHTTPServerExitsOneWithItsReason() async throws {
        let server = try HTTPTimeServer(configuration: HTTPTimeServer.Configuration(sendsDate: false))
        defer { server.stop() }
        let output = try await CLIRunner.run(["query", "--http", server.urlString, "--http-only", "--json"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("missing_date_header"))
        let json = try output.json()
        let http = try #require((json["http"] as? [[String: Any]])?.first)
        #expect(http["status"] as? String == "error")
        #expect(http["error_code"] as? String == "missing_date_header")
    }
}
