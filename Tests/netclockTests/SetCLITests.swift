import Foundation
import LoopbackServers
import SNTP
import Testing
import WallClockReference

/// `netclock set` end to end (issue 31), never changing this machine's clock: every run drops
/// `CAP_SYS_TIME` (`setpriv`) and, except the one that checks the kernel's refusal, runs under the
/// recorder (``ClockCallRecorder``), whose JSON lines are what these tests assert.
///
/// The client's wall clock is moved with libfaketime (``WallClockShift``); the recorder logs, at
/// each call, the wall clock the program saw and the kernel's real one, so a step must bring the
/// first within the reported bound of the second. Nothing is timed.
@Suite(
    .serialized, .enabled(if: ClockCallRecorder.runnable, ClockCallRecorder.toolsMissing),
    .wallClockReference)
struct SetCLITests {
    /// `clock_adjtime`'s modes for a relative step: `ADJ_SETOFFSET | ADJ_NANO`.
    static let stepModes = 0x2100
    /// `adjtimex`'s modes for a slew: `ADJ_OFFSET_SINGLESHOT`.
    static let slewModes = 0x8001
    /// `adjtimex`'s modes for the status: `ADJ_MAXERROR | ADJ_ESTERROR | ADJ_STATUS`.
    static let statusModes = 0x1C
    /// `STA_UNSYNC`.
    static let unsynchronized = 0x40
    /// Slack for the recorder's readings beyond half the gap between its two kernel readings (which
    /// bracket the program's): the conversions and the vDSO's own resolution.
    static let readingSlack = 0.0001

    /// The call's `key` as a number.
    static func number(_ call: [String: Any], _ key: String) -> Double? {
        (call[key] as? NSNumber)?.doubleValue
    }

    /// The status call after a correction: it declares `maximumError` (seconds, rounded up to whole
    /// microseconds) as both errors and clears `STA_UNSYNC`.
    static func expectStatusCall(
        _ call: [String: Any], maximumError: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(call["call"] as? String == "adjtimex", "\(call)", sourceLocation: sourceLocation)
        #expect(call["modes"] as? Int == statusModes, "\(call)", sourceLocation: sourceLocation)
        let microseconds = (maximumError * 1e6).rounded(.up)
        let declared = number(call, "maxerror") ?? -1
        #expect(
            abs(declared - microseconds) <= 1, "\(call) vs \(maximumError)", sourceLocation: sourceLocation)
        #expect(number(call, "esterror") == declared, "\(call)", sourceLocation: sourceLocation)
        #expect(
            ((call["status"] as? Int) ?? -1) & unsynchronized == 0, "\(call)", sourceLocation: sourceLocation)
    }

    /// One step and one status call; the step brings the wall clock the program saw within the
    /// bound of the kernel's real one.
    /// `label` names the case in each message when several run at once.
    static func expectOneStepToTrueTime(
        _ run: ClockCallRecorder.Run, _ label: String = "", sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        #expect(run.status == 0, "\(label) \(run.printed)", sourceLocation: sourceLocation)
        let set = try run.set()
        #expect(set["action"] as? String == "step", "\(label) \(set)", sourceLocation: sourceLocation)
        let bound = try #require(set["error_bound"] as? Double, "\(label)", sourceLocation: sourceLocation)
        #expect(run.calls.count == 2, "\(label) \(run.calls)", sourceLocation: sourceLocation)
        let step = try #require(run.calls.first, "\(label)", sourceLocation: sourceLocation)
        #expect(
            step["call"] as? String == "clock_adjtime", "\(label) \(step)", sourceLocation: sourceLocation)
        #expect(
            step["clock"] as? Int == 0, "\(label) CLOCK_REALTIME: \(step)", sourceLocation: sourceLocation)
        #expect(step["modes"] as? Int == stepModes, "\(label) \(step)", sourceLocation: sourceLocation)
        let offset = (number(step, "time_sec") ?? .nan) + (number(step, "time_frac") ?? .nan) / 1e9
        let seen = number(step, "seen_wall") ?? .nan
        let real = number(step, "real_wall") ?? .nan
        let gap = number(step, "reading_gap") ?? .nan
        #expect(
            abs(seen + offset - real) <= bound + gap / 2 + readingSlack,
            "\(label) stepped by \(offset) from \(seen): \(seen + offset - real) s from real time ± \(bound)",
            sourceLocation: sourceLocation)
        #expect(
            abs(offset - (set["correction"] as? Double ?? .nan)) < 1e-6, "\(label) \(step) vs \(set)",
            sourceLocation: sourceLocation)
        if run.calls.count == 2 {
            expectStatusCall(
                run.calls[1], maximumError: set["kernel_maximum_error"] as? Double ?? .nan,
                sourceLocation: sourceLocation)
            #expect(
                set["kernel_maximum_error"] as? Double == bound, "\(label)", sourceLocation: sourceLocation)
        }
    }

    static let coldStarts: [WallClockShift] = [.behind400Days, .ahead400Days, .deadRTC]

    /// The three clocks at once, each with its own scene and chronyd. The chronyd starts run at once
    /// too, each on a thread of its own (a start blocks until chronyd serves), and every chronyd
    /// stops only after the last run: `set` would count one that is exiting, its command line
    /// (`-x`) already gone from /proc, as another time daemon.
    @Test func aColdNTSSetStepsOnceToWithinTheBoundOfRealTime() async throws {
        let scenes = HandedOver(try Self.coldStarts.map { _ in try CertificateTimeScene() })
        defer { scenes.value.forEach { $0.remove() } }
        let started = try await BlockingCases.run(Array(scenes.value.indices), lanes: scenes.value.count) {
            HandedOver(try scenes.value[$0].honestChrony())
        }
        let servers = HandedOver(started.map(\.1.value))
        defer { servers.value.forEach { $0.stop() } }
        await concurrently(Self.coldStarts) { shift in
            let index = Self.coldStarts.firstIndex(of: shift) ?? 0
            let (scene, server) = (scenes.value[index], servers.value[index])
            let run = try await ClockCallRecorder.run(
                scene.ntsArguments("set", [ntsKE(server)], extra: ["--state", scene.state]), in: scene,
                at: shift)
            try Self.expectOneStepToTrueTime(run, "\(shift)")
            #expect(try run.json()["authenticated"] as? Bool == true, "\(shift)")
            #expect(
                try run.json()["certificate_time"] as? String == "bootstrap", "\(shift): \(run.run.stdout)")
            // The sync's own result and state are those of `sync`.
            try run.run.expectTrueTime(shift: shift)
            #expect(scene.contents(of: scene.state) != nil, "\(shift): no anchor saved")
            #expect(scene.contents(of: scene.floor) != nil, "\(shift): no floor saved")
        }
    }

    @Test func theExpiredKeyAttackerAloneBelowTheFloorGetsNoStep() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let honest = try scene.honestChrony()
        defer { honest.stop() }
        let attacker = try scene.attackerChrony()
        defer { attacker.stop() }
        try await ExpiredKeyAttackerCLITests.syncAtTheRightTime(scene, against: honest)
        honest.stop()
        try FileManager.default.removeItem(atPath: scene.state)
        let floor = try #require(scene.contents(of: scene.floor))

        let run = try await ClockCallRecorder.run(
            scene.ntsArguments("set", [ntsKE(attacker)], extra: ["--state", scene.state]), in: scene,
            at: .behind400Days)
        #expect(run.status == 1, "\(run.printed)")
        #expect(run.run.stderr.contains("floor"), "\(run.printed)")
        #expect(run.calls.isEmpty, "\(run.calls)")
        #expect(try run.json()["set"] == nil, "no set object when the sync gave no time")
        #expect(scene.contents(of: scene.floor) == floor, "the floor file changed")
    }

    /// HTTPS time under the certificate rules is not authenticated time for `set`: at 1970 it is
    /// refused beyond `--max-step`, and steps when the operator allows the distance.
    @Test func httpsTimeAtADeadRTCStepsOnlyWithinMaxStep() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try scene.honestHTTPS()
        defer { server.stop() }
        let arguments = [
            "set", "--http-only", "--http", server.urlString, "--http-header",
            CertificateTimeScene.timestampHeader,
            "--ca-file", scene.caFile, "--timeout", "1", "--json", "--state", scene.state,
        ]
        let refused = try await ClockCallRecorder.run(arguments, in: scene, at: .deadRTC)
        #expect(refused.status == 1, "\(refused.printed)")
        #expect(try refused.json()["certificate_time"] as? String == "bootstrap", "\(refused.run.stdout)")
        let set = try refused.set()
        #expect(set["error_code"] as? String == "unauthenticated_correction_too_large", "\(set)")
        #expect(set["authenticated"] as? Bool == false)
        #expect(refused.calls.isEmpty, "\(refused.calls)")

        let allowed = try await ClockCallRecorder.run(
            arguments + ["--max-step", "3000000000"], in: scene, at: .deadRTC)
        try Self.expectOneStepToTrueTime(allowed)
    }

    /// A fake NTP server `offset` away from this machine's clock, for the unauthenticated cases.
    static func fakeNTP(offset: Duration, rootDispersion: Duration = .zero) throws -> FakeNTPServer {
        var configuration = FakeNTPServer.Configuration()
        configuration.offset = offset
        configuration.rootDispersion = rootDispersion
        return try FakeNTPServer(configuration: configuration)
    }

    static func ntpArguments(_ server: FakeNTPServer, _ scene: CertificateTimeScene, _ extra: [String] = [])
        -> [String]
    {
        [
            "set", "127.0.0.1:\(server.port)", "--samples", "1", "--interval", "0", "--timeout", "1",
            "--json",
            "--state", scene.state,
        ] + extra
    }

    @Test func aSmallOffsetGetsASlewAndTheKernelTheBoundPlusTheSlew() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try Self.fakeNTP(offset: .milliseconds(200))
        defer { server.stop() }
        let run = try await ClockCallRecorder.run(Self.ntpArguments(server, scene), in: scene, at: nil)
        #expect(run.status == 0, "\(run.printed)")
        let set = try run.set()
        #expect(set["action"] as? String == "slew", "\(set)")
        let bound = try #require(set["error_bound"] as? Double)
        try #require(run.calls.count == 2, "\(run.calls)")
        let slew = run.calls[0]
        #expect(slew["call"] as? String == "adjtimex" && slew["modes"] as? Int == Self.slewModes, "\(slew)")
        // The offset is in microseconds; the server is 200 ms ahead of the real clock the program reads.
        let slewed = (Self.number(slew, "offset") ?? .nan) / 1e6
        #expect(abs(slewed - 0.2) <= bound + 1e-6, "slewed \(slewed) ± \(bound)")
        Self.expectStatusCall(run.calls[1], maximumError: bound + abs(set["correction"] as? Double ?? .nan))
    }

    /// A server on this machine's own clock: the true offset is zero, which an honest bound
    /// contains, so the clock is inside the interval. Nothing steps or slews it, but the kernel is
    /// told it is synchronised: exactly one status call, declaring the bound plus the correction's
    /// magnitude (how far the clock may be from true time) with `STA_UNSYNC` cleared.
    @Test func aClockInsideTheIntervalIsLeftAloneAndTheKernelToldItIsSynchronised() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try Self.fakeNTP(offset: .zero)
        defer { server.stop() }
        let run = try await ClockCallRecorder.run(Self.ntpArguments(server, scene), in: scene, at: nil)
        #expect(run.status == 0, "\(run.printed)")
        let set = try run.set()
        #expect(set["action"] as? String == "none", "\(set)")
        let correction = try #require(set["correction"] as? Double, "\(set)")
        let bound = try #require(set["error_bound"] as? Double, "\(set)")
        #expect(abs(correction) <= bound, "\(set)")
        let declared = try #require(set["kernel_maximum_error"] as? Double, "\(set)")
        #expect(abs(declared - (bound + abs(correction))) < 1e-9, "\(set)")
        try #require(run.calls.count == 1, "\(run.calls)")
        Self.expectStatusCall(run.calls[0], maximumError: declared)

        // The text says so; a dry run says what it would have told the kernel and calls nothing.
        let text = try await ClockCallRecorder.run(
            Array(Self.ntpArguments(server, scene).filter { $0 != "--json" }), in: scene, at: nil)
        #expect(text.status == 0 && text.calls.count == 1, "\(text.printed)")
        #expect(
            text.run.stdout.contains("left alone; the kernel was told it is synchronised"), "\(text.printed)")
        let dry = try await ClockCallRecorder.run(
            Self.ntpArguments(server, scene, ["--dry-run"]), in: scene, at: nil)
        #expect(dry.status == 0 && dry.calls.isEmpty, "\(dry.printed)")
        #expect(try dry.set()["kernel_maximum_error"] is NSNull, "\(dry.printed)")
    }

    @Test func aDryRunDecidesButRecordsNothing() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try Self.fakeNTP(offset: .seconds(5))
        defer { server.stop() }
        let run = try await ClockCallRecorder.run(
            Self.ntpArguments(server, scene, ["--dry-run"]), in: scene, at: nil)
        #expect(run.status == 0, "\(run.printed)")
        #expect(run.calls.isEmpty, "\(run.calls)")
        let set = try run.set()
        #expect(set["action"] as? String == "step" && set["dry_run"] as? Bool == true, "\(set)")
        #expect(set["kernel_maximum_error"] is NSNull, "\(set)")
        #expect(abs((set["correction"] as? Double ?? .nan) - 5) < 0.01, "\(set)")
    }

    @Test func unauthenticatedTimeBeyondMaxStepIsRefusedButTheAnchorIsSaved() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try Self.fakeNTP(offset: .seconds(2000))
        defer { server.stop() }
        let run = try await ClockCallRecorder.run(Self.ntpArguments(server, scene), in: scene, at: nil)
        #expect(run.status == 1, "\(run.printed)")
        #expect(run.calls.isEmpty, "\(run.calls)")
        let set = try run.set()
        #expect(set["action"] as? String == "refused", "\(set)")
        #expect(set["error_code"] as? String == "unauthenticated_correction_too_large", "\(set)")
        #expect(run.run.stderr.contains("unauthenticated_correction_too_large"), "\(run.printed)")
        #expect(scene.contents(of: scene.state) != nil, "the sync's anchor was not saved")

        let allowed = try await ClockCallRecorder.run(
            Self.ntpArguments(server, scene, ["--max-step", "3000"]), in: scene, at: nil)
        #expect(allowed.status == 0, "\(allowed.printed)")
        #expect(allowed.calls.first?["modes"] as? Int == Self.stepModes, "\(allowed.calls)")
    }

    @Test func aBoundOverHalfTheCorrectionIsRefusedAsTooWide() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        // Root dispersion 150 ms: a bound of about 0.15 s against a correction of 0.2 s.
        let server = try Self.fakeNTP(offset: .milliseconds(200), rootDispersion: .milliseconds(150))
        defer { server.stop() }
        let run = try await ClockCallRecorder.run(Self.ntpArguments(server, scene), in: scene, at: nil)
        #expect(run.status == 1, "\(run.printed)")
        #expect(try run.set()["error_code"] as? String == "bound_too_wide", "\(run.printed)")
        #expect(run.calls.isEmpty, "\(run.calls)")
    }

    @Test func anotherTimeDaemonIsNotFoughtUnlessForced() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try Self.fakeNTP(offset: .seconds(3))
        defer { server.stop() }
        // A process named ntpd (a copy of sleep): what a running ntpd shows in /proc.
        let ntpd = scene.directory + "/ntpd"
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: ntpd)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: ntpd)
        daemon.arguments = ["30"]
        try daemon.run()
        defer {
            // SIGKILL: the test runner's children may inherit a mask that blocks SIGTERM.
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        let run = try await ClockCallRecorder.run(Self.ntpArguments(server, scene), in: scene, at: nil)
        #expect(run.status == 1, "\(run.printed)")
        let set = try run.set()
        #expect(set["error_code"] as? String == "other_time_daemon", "\(set)")
        #expect(
            (set["other_time_daemons"] as? [String])?.contains("ntpd (pid \(daemon.processIdentifier))")
                == true)
        #expect(run.calls.isEmpty, "\(run.calls)")

        let forced = try await ClockCallRecorder.run(
            Self.ntpArguments(server, scene, ["--force"]), in: scene, at: nil)
        #expect(forced.status == 0, "\(forced.printed)")
        #expect(forced.calls.first?["modes"] as? Int == Self.stepModes, "\(forced.calls)")
    }

    /// The one run without the recorder: the kernel itself refuses, as it would any call the
    /// recorder missed.
    @Test func withoutCapSysTimeTheKernelRefusesAndSetSaysHowToGrantIt() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try Self.fakeNTP(offset: .seconds(3))
        defer { server.stop() }
        let run = try await ClockCallRecorder.run(
            Self.ntpArguments(server, scene), in: scene, at: nil, recording: false)
        #expect(run.status == 1, "\(run.printed)")
        #expect(run.run.stderr.contains("CAP_SYS_TIME") && run.run.stderr.contains("EPERM"), "\(run.printed)")
        let set = try run.set()
        #expect(set["error_code"] as? String == "not_permitted", "\(set)")
        #expect(set["action"] as? String == "refused", "\(set)")
        #expect(scene.contents(of: scene.state) != nil, "the sync's anchor was not saved")
    }

    @Test func theTextSaysWhatWasDone() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try Self.fakeNTP(offset: .seconds(3))
        defer { server.stop() }
        let arguments = Self.ntpArguments(server, scene).filter { $0 != "--json" }
        let run = try await ClockCallRecorder.run(arguments, in: scene, at: nil)
        #expect(run.status == 0, "\(run.printed)")
        #expect(run.run.stdout.contains("saved to "), "the sync's lines: \(run.run.stdout)")
        // "system clock: stepped +2.999517s (± 696.3µs)": the step is the server's 3 s within its bound.
        let line = try #require(
            run.run.stdout.split(separator: "\n").first { $0.hasPrefix("system clock: stepped +") },
            "\(run.run.stdout)")
        let numbers = line.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
        let step = try #require(numbers.first)
        let bound = try #require(numbers.dropFirst().first) * (line.contains("µs)") ? 1e-6 : 1e-3)
        #expect(abs(step - 3) <= bound, "\(line)")
    }
}

/// `set --roughtime` against `roughly`: Roughtime's signed time is authenticated, so a cold start
/// at 1970 steps to it, as with NTS.
@Suite(
    .serialized,
    .enabled(
        if: ClockCallRecorder.runnable && RoughlyTimeServer.runnable,
        "roughly (NETCLOCK_ROUGHLY_VENV), gcc or setpriv missing: skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"
    ),
    .wallClockReference)
struct SetRoughtimeCLITests {
    /// The two clocks at once against one server (a Python server starts in a second or two), each
    /// run in its own scene.
    @Test func aColdRoughtimeSetStepsOnceToWithinTheBoundOfRealTime() async throws {
        let serverScene = try CertificateTimeScene()
        defer { serverScene.remove() }
        let server = try RoughlyTimeServer(in: serverScene.directory)
        defer { server.stop() }
        try await server.waitUntilAnswering()
        let ecosystem = try server.ecosystemFile()
        await concurrently([WallClockShift.deadRTC, .behind400Days]) { shift in
            let scene = try CertificateTimeScene()
            defer { scene.remove() }
            let run = try await ClockCallRecorder.run(
                [
                    "set", "--roughtime", ecosystem, "--timeout", "1", "--json", "--state", scene.state,
                ],
                in: scene, at: shift)
            try SetCLITests.expectOneStepToTrueTime(run, "\(shift)")
            #expect(try run.json()["authenticated"] as? Bool == true, "\(shift): \(run.run.stdout)")
            #expect(try run.set()["authenticated"] as? Bool == true, "\(shift)")
        }
    }
}

/// Values that are not `Sendable` handed between a test's task and threads or child tasks of its
/// own: each element is used by one of them at a time, the others waiting or using other elements.
private struct HandedOver<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
