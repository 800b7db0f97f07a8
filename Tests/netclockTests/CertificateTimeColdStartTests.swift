import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// A cold start (no state file, no Roughtime) with the wall clock wrong by −400 d, +400 d, −20 d or at
/// 1970 (issue 21, point 3): `netclock query` against a real chronyd NTS server and against the
/// loopback HTTPS server, both honest (certificate valid from now for 3 days, this machine's clock).
///
/// By default (`--certificate-time auto`) the certificates are checked without the time (chain,
/// name, purpose, signatures), then against the time obtained: exit 0, `certificate_time:
/// "bootstrap"`, the true time. With `--certificate-time wall-clock` they are checked against the
/// wrong clock, chrony's default: exit 1 with OpenSSL's validity reason, as before issue 21.
///
/// Wall clocks here are the subject, not a timer: the defect is the CLI checking certificates
/// against its own wall clock, so the wall clock is moved (libfaketime, a whole number of days or
/// 1970) and the offset reported against it is the output. Nothing is timed; the only real
/// wall-clock readings are the instants around each run, within which libfaketime starts the shifted
/// clock (``WallClockShift/expectedOffset(spawnedAt:exitedAt:)``).
@Suite(
    .serialized, .enabled(if: CertificateTimeScene.runnable, CertificateTimeScene.toolsMissing),
    .wallClockReference)
struct CertificateTimeColdStartTests {
    /// The strict run's failure: exit 1, the validity reason on stderr and in the source's entry, no
    /// time; the certificates were checked, against the wall clock.
    static func expectStrictFailure(
        _ run: CertificateTimeScene.Run, shift: WallClockShift, entry: [String: Any],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(run.status == 1, "\(run.printed)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains(shift.strictReason), "\(run.printed)", sourceLocation: sourceLocation)
        #expect(
            (entry["reason"] as? String)?.contains(shift.strictReason) == true, "\(entry)",
            sourceLocation: sourceLocation)
        let json = try run.json()
        #expect(
            json["offset"] == nil && json["error"] is String, "\(run.stdout)", sourceLocation: sourceLocation)
        #expect(json["authenticated"] as? Bool == false, sourceLocation: sourceLocation)
        #expect(
            try run.certificateTime() as? String == "wall_clock", "\(run.stdout)",
            sourceLocation: sourceLocation)
    }

    /// Every shift at once, NTS and HTTPS side by side, each case with its own scene and server,
    /// and a case's three runs at once: nothing here is timed (the offsets are judged against each
    /// run's own spawn and exit instants), `query` keeps no state, and most of the test is the HTTPS
    /// `Date` refinement's waits for the server's second boundaries. Every message names its shift.
    @Test func coldStartBootstrapsAndWallClockModeRefuses() async {
        await concurrently(WallClockShift.all) { shift in
            async let nts: Void = Self.ntsColdStart(shift)
            async let https: Void = Self.httpsColdStart(shift)
            try await nts
            try await https
        }
    }

    static func ntsColdStart(_ shift: WallClockShift) async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try scene.honestChrony()
        defer { server.stop() }
        let host = ntsKE(server)

        async let runTask = scene.netclock(scene.ntsArguments("query", [host]), at: shift)
        // The human output names it; `auto` is the default, spelt out here.
        async let textTask = scene.netclock(
            scene.ntsArguments("query", [host], json: false, extra: ["--certificate-time", "auto"]), at: shift
        )
        async let strictTask = scene.netclock(
            scene.ntsArguments("query", [host], extra: ["--certificate-time", "wall-clock"]), at: shift)
        let run = try await runTask
        let text = try await textTask
        let strict = try await strictTask

        #expect(run.status == 0, "\(shift): \(run.printed)")
        #expect(try run.certificateTime() as? String == "bootstrap", "\(shift): \(run.stdout)")
        #expect(try run.json()["authenticated"] as? Bool == true, "\(shift)")
        try run.expectTrueTime(shift: shift)
        let entry = try run.server(host)
        #expect(entry["status"] as? String == "selected", "\(shift): \(entry)")
        #expect(entry["authenticated"] as? Bool == true, "\(shift)")
        #expect(
            try CertificateTimeScene.Run.nts(entry)["certificate_time"] as? String == "bootstrap", "\(shift)")

        #expect(text.status == 0, "\(shift): \(text.printed)")
        #expect(text.stdout.lowercased().contains("bootstrap"), "\(shift): \(text.stdout)")
        #expect(text.stdout.contains("authenticated"), "\(shift): \(text.stdout)")

        let strictEntry = try strict.server(host)
        try Self.expectStrictFailure(strict, shift: shift, entry: strictEntry)
        #expect(strictEntry["status"] as? String == "error", "\(shift): \(strictEntry)")
        #expect(
            try CertificateTimeScene.Run.nts(strictEntry)["certificate_time"] as? String == "wall_clock",
            "\(shift)")
    }

    static func httpsColdStart(_ shift: WallClockShift) async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try scene.honestHTTPS()
        defer { server.stop() }
        let url = server.urlString
        #expect(url.hasPrefix("https://127.0.0.1:"), "\(shift)")

        async let runTask = scene.netclock(scene.httpsArguments(url), at: shift)
        // The millisecond header here: one request instead of the seconds `Date` refinement takes.
        async let textTask = scene.netclock(
            scene.httpsArguments(
                url, json: false,
                extra: ["--http-header", CertificateTimeScene.timestampHeader, "--certificate-time", "auto"]),
            at: shift)
        async let strictTask = scene.netclock(
            scene.httpsArguments(url, extra: ["--certificate-time", "wall-clock"]), at: shift)
        let run = try await runTask
        let text = try await textTask
        let strict = try await strictTask

        #expect(run.status == 0, "\(shift): \(run.printed)")
        #expect(try run.certificateTime() as? String == "bootstrap", "\(shift): \(run.stdout)")
        #expect(try run.json()["source"] as? String == "http", "\(shift)")
        // HTTPS time is not NTS: the contract's `authenticated` stays false whatever checked the
        // certificate.
        #expect(try run.json()["authenticated"] as? Bool == false, "\(shift)")
        try run.expectTrueTime(shift: shift)
        let entry = try run.httpEntry()
        #expect(entry["status"] as? String == "selected", "\(shift): \(entry)")
        #expect(entry["certificate_time"] as? String == "bootstrap", "\(shift): \(entry)")
        #expect(entry["kind"] as? String == "date", "\(shift): \(entry)")

        #expect(text.status == 0, "\(shift): \(text.printed)")
        #expect(text.stdout.lowercased().contains("bootstrap"), "\(shift): \(text.stdout)")

        let strictEntry = try strict.httpEntry()
        try Self.expectStrictFailure(strict, shift: shift, entry: strictEntry)
        #expect(strictEntry["certificate_time"] as? String == "wall_clock", "\(shift): \(strictEntry)")
    }

    /// No certificate, no certificate time: plain NTP at −400 d has `certificate_time: null` and no
    /// `nts` object, and gives the true time as it always did.
    @Test func plainNTPChecksNoCertificate() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        let run = try await scene.netclock(
            [
                "query", "127.0.0.1:\(server.port)", "--samples", "1", "--interval", "0", "--timeout", "1",
                "--json",
            ],
            at: .behind400Days)
        #expect(run.status == 0, "\(run.printed)")
        #expect(try run.certificateTime() is NSNull, "\(run.stdout)")
        #expect(try run.servers().allSatisfy { $0["nts"] == nil })
        try run.expectTrueTime(shift: .behind400Days)
    }
}
