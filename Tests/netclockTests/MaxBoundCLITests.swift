import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// `--max-bound SEC` for timers and scripts (issue 43): `sync` and `set` send nothing while the
/// stored anchor's bound aged to now is within SEC (and authenticated where `--nts` asks), and say
/// so (`"skipped": true` and the bound); `set` then corrects the clock from the stored anchor;
/// `now` refuses a wider bound. The servers' request counts prove what was sent.
@Suite(
    .serialized, .enabled(if: ClockCallRecorder.runnable, ClockCallRecorder.toolsMissing), .wallClockReference
)
struct MaxBoundCLITests {
    static func sync(_ server: FakeNTPServer, _ scene: CertificateTimeScene, _ extra: [String]) async throws
        -> CertificateTimeScene.Run
    {
        try await scene.netclock(
            [
                "sync", "127.0.0.1:\(server.port)", "--samples", "1", "--interval", "0", "--json", "--state",
                scene.state,
            ]
                + extra, at: nil)
    }

    @Test func syncSkipsWhileTheStoredAnchorIsWithinTheBound() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try SetCLITests.fakeNTP(offset: .milliseconds(300))
        defer { server.stop() }
        // No anchor yet: it syncs.
        let first = try await Self.sync(server, scene, ["--max-bound", "0.1"])
        #expect(first.status == 0, "\(first.printed)")
        #expect(try first.json()["skipped"] as? Bool == false, "\(first.stdout)")
        #expect(server.requestCount == 1)
        // Within 100 ms: nothing is sent, and the stored anchor's time is printed.
        let skipped = try await Self.sync(server, scene, ["--max-bound", "0.1"])
        #expect(skipped.status == 0, "\(skipped.printed)")
        let json = try skipped.json()
        #expect(json["skipped"] as? Bool == true, "\(skipped.stdout)")
        let bound = try #require(json["error_bound"] as? Double)
        let offset = try #require(json["offset"] as? Double)
        #expect(bound > 0 && bound <= 0.1 && abs(offset - 0.3) <= bound, "\(json)")
        #expect(json["authenticated"] as? Bool == false)
        #expect(server.requestCount == 1, "a skipped sync sent \(server.requestCount - 1) requests")
        // The text says so too.
        let text = try await scene.netclock(
            ["sync", "127.0.0.1:\(server.port)", "--max-bound", "0.1", "--state", scene.state], at: nil)
        #expect(text.status == 0 && text.stdout.hasPrefix("skipped: "), "\(text.printed)")
        #expect(server.requestCount == 1)
        // A bound tighter than the anchor's: it syncs.
        let tight = try await Self.sync(server, scene, ["--max-bound", "0.000001"])
        #expect(try tight.json()["skipped"] as? Bool == false, "\(tight.stdout)")
        #expect(server.requestCount == 2)
        // `now` accepts the bound, and refuses a tighter one.
        let now = try await scene.netclock(["now", "--max-bound", "0.1", "--state", scene.state], at: nil)
        #expect(now.status == 0, "\(now.printed)")
        let refused = try await scene.netclock(
            ["now", "--max-bound", "0.000001", "--state", scene.state], at: nil)
        #expect(refused.status == 1 && refused.stderr.contains("--max-bound"), "\(refused.printed)")
    }

    /// `--nts` asks for authenticated time: an unauthenticated anchor within the bound is no reason
    /// to skip, and the NTS server is asked.
    @Test func anUnauthenticatedAnchorDoesNotMeetAnNTSSync() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let plain = try SetCLITests.fakeNTP(offset: .zero)
        defer { plain.stop() }
        _ = try await Self.sync(plain, scene, [])
        let nts = try scene.honestFakeNTS()
        defer { nts.stop() }
        let run = try await scene.netclock(
            scene.ntsArguments("sync", [ntsKE(nts)], extra: ["--max-bound", "10", "--state", scene.state]),
            at: nil)
        #expect(run.status == 0, "\(run.printed)")
        #expect(try run.json()["skipped"] as? Bool == false, "\(run.stdout)")
        #expect(try run.json()["authenticated"] as? Bool == true)
        // Now the anchor is authenticated and within the bound: the next NTS sync sends nothing.
        let again = try await scene.netclock(
            scene.ntsArguments("sync", [ntsKE(nts)], extra: ["--max-bound", "10", "--state", scene.state]),
            at: nil)
        #expect(try again.json()["skipped"] as? Bool == true, "\(again.stdout)")
        #expect(try again.json()["authenticated"] as? Bool == true)
    }

    /// `set --max-bound`: with the wall clock 30 s ahead and a stored anchor within the bound, no
    /// request is sent and the clock is stepped from the anchor, under the recorder and without
    /// `CAP_SYS_TIME`.
    @Test func setCorrectsFromTheStoredAnchorWithoutSending() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try SetCLITests.fakeNTP(offset: .zero)
        defer { server.stop() }
        _ = try await Self.sync(server, scene, [])
        #expect(server.requestCount == 1)
        let run = try await ClockCallRecorder.run(
            ["set", "127.0.0.1:\(server.port)", "--max-bound", "1", "--json", "--state", scene.state],
            in: scene, at: .ahead30Seconds)
        try SetCLITests.expectOneStepToTrueTime(run, "set --max-bound")
        #expect(try run.json()["skipped"] as? Bool == true, "\(run.run.stdout)")
        #expect(server.requestCount == 1, "set --max-bound sent \(server.requestCount - 1) requests")
    }
}
