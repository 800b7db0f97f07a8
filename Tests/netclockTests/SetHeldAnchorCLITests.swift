import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// `netclock set` after an honest NTS sync against real chronyd (issue 40): the clock's trusted
/// time, not the sync's report, decides, so unauthenticated time never steers the system clock away
/// from a held authenticated anchor. Every run drops `CAP_SYS_TIME` and runs under the clock-call
/// recorder (``ClockCallRecorder``); where the process's wall clock must be wrong, libfaketime moves
/// it alone (``WallClockShift``, monotonic clocks left real), so the anchor keeps its meaning.
@Suite(
    .serialized, .enabled(if: ClockCallRecorder.runnable, ClockCallRecorder.toolsMissing),
    .wallClockReference)
struct SetHeldAnchorCLITests {
    /// The honest NTS sync every case starts from, with chronyd stopped afterwards (so that only the
    /// servers a case names can answer).
    static func anchoredScene() async throws -> CertificateTimeScene {
        let scene = try CertificateTimeScene()
        let honest = try scene.honestChrony()
        defer { honest.stop() }
        try await ExpiredKeyAttackerCLITests.syncAtTheRightTime(scene, against: honest)
        return scene
    }

    /// `set` against one plain server at 127.0.0.1:`port`, one sample, JSON unless `json` is false.
    static func arguments(port: UInt16, _ scene: CertificateTimeScene, json: Bool = true) -> [String] {
        [
            "set", "127.0.0.1:\(port)", "--samples", "1", "--interval", "0", "--timeout", "1", "--state",
            scene.state,
        ]
            + (json ? ["--json"] : [])
    }

    /// A plain server ahead of this machine's clock by `offset` seconds: a forgery anyone on the path
    /// can send.
    struct Forgery: Sendable, CustomStringConvertible {
        var offset: Duration
        var description: String { "+\(offset.secondsDouble) s" }
    }

    /// With the system clock right, forged plain time at +500 s, +20 s and +0.3 s (all under
    /// `--max-step`) gives no step and no slew: the held authenticated anchor decides, and the
    /// forged source is named as contradicting it.
    @Test func plainTimeNeverOverrulesAHeldAuthenticatedAnchor() async throws {
        let scene = try await Self.anchoredScene()
        defer { scene.remove() }
        let forgeries = [
            Forgery(offset: .seconds(500)), Forgery(offset: .seconds(20)), .init(offset: .milliseconds(300)),
        ]
        await concurrently(forgeries) { forgery in
            let server = try SetCLITests.fakeNTP(offset: forgery.offset)
            defer { server.stop() }
            let run = try await ClockCallRecorder.run(
                Self.arguments(port: server.port, scene), in: scene, at: nil)
            #expect(run.status == 0, "\(forgery): \(run.printed)")
            let set = try run.set()
            #expect(set["action"] as? String == "none", "\(forgery): \(set)")
            // No step or slew; only the kernel's status, from the anchor's bound.
            #expect(run.calls.count == 1, "\(forgery): \(run.calls)")
            if let status = run.calls.first, let declared = set["kernel_maximum_error"] as? Double {
                SetCLITests.expectStatusCall(status, maximumError: declared)
            } else {
                Issue.record("\(forgery): no status call or no declared error: \(run.calls), \(set)")
            }
            #expect(set["authenticated"] as? Bool == true, "\(forgery): \(set)")
            let correction = try #require(set["correction"] as? Double)
            let bound = try #require(set["error_bound"] as? Double)
            // The anchor's bound is far tighter than the smallest forgery (0.3 s): it lies outside.
            #expect(abs(correction) <= bound && bound < 0.1, "\(forgery): \(set)")
            let json = try run.json()
            #expect(json["anchor_update"] as? String == "kept_authenticated", "\(forgery): \(run.run.stdout)")
            #expect(json["authenticated"] as? Bool == true, "\(forgery): \(run.run.stdout)")
            // The top level is the clock's trusted time; the source keeps its own measurement.
            try run.run.expectTrueTime(shift: nil)
            let source = try #require((json["servers"] as? [[String: Any]])?.first, "\(run.run.stdout)")
            #expect(source["status"] as? String == "contradicts_authenticated", "\(forgery): \(source)")
            // Its own measurement stands, the forged offset within its own bound (and the 1 ms a
            // preempted wall-clock pairing can add).
            let offset = try #require(source["offset"] as? Double)
            let sourceBound = try #require(source["error_bound"] as? Double)
            #expect(
                abs(offset - forgery.offset.secondsDouble) <= sourceBound + 0.001, "\(forgery): \(source)")
        }
        // The text names the source too.
        let server = try SetCLITests.fakeNTP(offset: .seconds(500))
        defer { server.stop() }
        let text = try await ClockCallRecorder.run(
            Self.arguments(port: server.port, scene, json: false), in: scene, at: nil)
        #expect(text.status == 0 && text.calls.count == 1, "\(text.printed)")
        #expect(
            text.run.stdout.contains("contradicts authenticated time: 127.0.0.1:\(server.port)"),
            "\(text.printed)")
        #expect(text.run.stdout.contains("left alone"), "\(text.printed)")
    }

    /// What the process sees: a wall clock 30 s ahead of the truth the anchor holds.
    enum Evidence: String, Sendable, CustomStringConvertible {
        /// A plain server on this machine's (right) clock, inside the anchor: it only confirms it.
        case agreeingPlainServer = "a plain server that agrees"
        /// No server answers at all (a closed port): the anchor alone.
        case noServer = "no server reachable"
        var description: String { rawValue }
    }

    /// With the process's wall clock 30 s ahead, the anchor corrects it by one step that lands
    /// within the anchor's bound, from authenticated time, whether a plain server agreeing with it
    /// answers or no server answers at all.
    @Test func aWrongClockIsCorrectedFromTheHeldAnchor() async throws {
        let scene = try await Self.anchoredScene()
        defer { scene.remove() }
        let shift = WallClockShift.ahead30Seconds
        await concurrently([Evidence.agreeingPlainServer, .noServer]) { evidence in
            let server = try SetCLITests.fakeNTP(offset: .zero)
            defer { server.stop() }
            // Nothing listens on a stopped server's port: the request is refused at once.
            if evidence == .noServer { server.stop() }
            let run = try await ClockCallRecorder.run(
                Self.arguments(port: server.port, scene), in: scene, at: shift)
            try SetCLITests.expectOneStepToTrueTime(run, "\(evidence)")
            let set = try run.set()
            #expect(set["authenticated"] as? Bool == true, "\(evidence): \(set)")
            let bound = set["error_bound"] as? Double ?? .nan
            run.run.expectOffset(
                set["correction"] as? Double ?? .nan, bound: bound, shift: shift, "\(evidence): correction")
            let json = try run.json()
            switch evidence {
            case .agreeingPlainServer:
                #expect(json["anchor_update"] as? String == "kept_authenticated", "\(run.run.stdout)")
                let source = try #require((json["servers"] as? [[String: Any]])?.first, "\(run.run.stdout)")
                #expect(source["status"] as? String == "selected", "\(source)")
                try run.run.expectTrueTime(shift: shift)
            case .noServer:
                #expect(json["error"] is String, "the sync's failure is reported: \(run.run.stdout)")
                #expect(run.run.stderr.contains("no usable time source"), "\(run.printed)")
            }
        }
    }
}
