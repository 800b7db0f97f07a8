import Foundation
import LoopbackServers
import NetworkClock
import Testing
import WallClockReference

/// The expired-key attacker of issue 21 against `netclock` with its wall clock 400 days behind: a
/// chronyd whose clock is last year's, authenticating it with a leaked key of the trusted CA that
/// expired about 370 days ago (``CertificateTimeScene``). To a client whose clock is as wrong as the
/// attacker's, its certificate looks valid and its time agrees with the wall clock.
///
/// - An anchored clock checks certificates against trusted time: the attacker is refused and the
///   anchor stays byte for byte; an honest server is checked against the trusted clock too.
/// - At a cold start, two honest servers outvote it.
/// - With no anchor left (removed, or from another boot) but the floor kept beside it, a lone
///   attacker's time lies before the floor and is refused, and nothing is stored.
///
/// Wall clocks here are the subject, not a timer: the defect is the CLI checking certificates
/// against its own wall clock, so the wall clock is moved (libfaketime, a whole number of days or
/// 1970) and the offset reported against it is the output. Nothing is timed; the only real
/// wall-clock readings are the instants around each run, within which libfaketime starts the shifted
/// clock (``WallClockShift/expectedOffset(spawnedAt:exitedAt:)``).
@Suite(
    .serialized, .enabled(if: CertificateTimeScene.runnable, CertificateTimeScene.toolsMissing),
    .wallClockReference)
struct ExpiredKeyAttackerCLITests {
    /// `sync --nts --state F` at the right time against `server`: an authenticated anchor and a
    /// private floor file beside it. On a cold start `auto` bootstraps (or, should the rule say so
    /// for a correct clock, checks against the wall clock): either way the anchor is authenticated.
    static func syncAtTheRightTime(
        _ scene: CertificateTimeScene, against server: ChronyNTSServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let run = try await scene.netclock(
            scene.ntsArguments("sync", [ntsKE(server)], extra: ["--state", scene.state]), at: nil)
        #expect(run.status == 0, "\(run.printed)", sourceLocation: sourceLocation)
        let checkedBy = try run.certificateTime() as? String
        #expect(
            checkedBy == "bootstrap" || checkedBy == "wall_clock", "\(run.stdout)",
            sourceLocation: sourceLocation)
        #expect(try run.json()["authenticated"] as? Bool == true, sourceLocation: sourceLocation)
        try run.expectTrueTime(shift: nil, sourceLocation: sourceLocation)
        #expect(scene.contents(of: scene.state) != nil, "no anchor file", sourceLocation: sourceLocation)
        let attributes = try #require(
            try? FileManager.default.attributesOfItem(atPath: scene.floor), "no floor file \(scene.floor)",
            sourceLocation: sourceLocation)
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        #expect(
            mode >= 0 && mode & 0o077 == 0, "floor file mode \(String(mode, radix: 8))",
            sourceLocation: sourceLocation)
    }

    @Test func anAnchoredClockRefusesTheExpiredKeyAndChecksTheHonestServerAgainstTrustedTime() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        let honest = try scene.honestChrony()
        defer { honest.stop() }
        let attacker = try scene.attackerChrony()
        defer { attacker.stop() }
        try await Self.syncAtTheRightTime(scene, against: honest)
        let anchor = try #require(scene.contents(of: scene.state))
        let floor = try #require(scene.contents(of: scene.floor))

        let before = try attacker.serverStatistics(chronyc: chronyc)
        let attack = try await scene.netclock(
            scene.ntsArguments("sync", [ntsKE(attacker)], extra: ["--state", scene.state]), at: .behind400Days
        )
        #expect(attack.status == 1, "\(attack.printed)")
        #expect(attack.stderr.contains("certificate"), "\(attack.printed)")
        #expect(try attack.certificateTime() as? String == "trusted_clock", "\(attack.stdout)")
        #expect(try attack.json()["authenticated"] as? Bool == false)
        let entry = try attack.server(ntsKE(attacker))
        #expect(!["selected", "survivor"].contains(entry["status"] as? String ?? ""), "\(entry)")
        #expect((entry["reason"] as? String)?.contains("certificate") == true, "\(entry)")
        #expect(try CertificateTimeScene.Run.nts(entry)["certificate_time"] as? String == "trusted_clock")
        // Checked against trusted time, the certificate is refused in the NTS-KE handshake: the
        // attacker never gets to send an authenticated NTP reply.
        let after = try attacker.serverStatistics(chronyc: chronyc)
        #expect(
            ChronyNTSServer.increase(of: "Authenticated NTP packets", from: before, to: after) == 0,
            "before \(before), after \(after)")
        #expect(scene.contents(of: scene.state) == anchor, "the anchor file changed")
        #expect(scene.contents(of: scene.floor) == floor, "the floor file changed")

        // Kept cookies would let the honest sync skip the key exchange, and with it the certificate
        // check this test is about: remove them so NTS-KE runs again.
        try? FileManager.default.removeItem(atPath: scene.cookies)
        let run = try await scene.netclock(
            scene.ntsArguments("sync", [ntsKE(honest)], extra: ["--state", scene.state]), at: .behind400Days)
        #expect(run.status == 0, "\(run.printed)")
        #expect(try run.certificateTime() as? String == "trusted_clock", "\(run.stdout)")
        #expect(try run.json()["authenticated"] as? Bool == true)
        try run.expectTrueTime(shift: .behind400Days)
        let honestEntry = try run.server(ntsKE(honest))
        #expect(honestEntry["status"] as? String == "selected", "\(honestEntry)")
        #expect(
            try CertificateTimeScene.Run.nts(honestEntry)["certificate_time"] as? String == "trusted_clock")

        try? FileManager.default.removeItem(atPath: scene.cookies)
        let text = try await scene.netclock(
            scene.ntsArguments("sync", [ntsKE(honest)], json: false, extra: ["--state", scene.state]),
            at: .behind400Days)
        #expect(text.status == 0, "\(text.printed)")
        #expect(text.stdout.lowercased().contains("trusted clock"), "\(text.stdout)")
    }

    @Test func atAColdStartTwoHonestServersOutvoteTheExpiredKey() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let attacker = try scene.attackerChrony()
        defer { attacker.stop() }
        let honest = try scene.honestChrony()
        defer { honest.stop() }
        let fake = try scene.honestFakeNTS()
        defer { fake.stop() }
        let hosts = [ntsKE(attacker), ntsKE(honest), ntsKE(fake)]

        // The attacker first: the order of the command line must not decide.
        let run = try await scene.netclock(scene.ntsArguments("query", hosts), at: .behind400Days)
        #expect(run.status == 0, "\(run.printed)")
        #expect(try run.certificateTime() as? String == "bootstrap", "\(run.stdout)")
        #expect(try run.json()["authenticated"] as? Bool == true)
        try run.expectTrueTime(shift: .behind400Days)
        let entry = try run.server(ntsKE(attacker))
        #expect(entry["status"] as? String == "falseticker", "\(entry)")
        let reason = (entry["reason"] as? String ?? "").lowercased()
        #expect(reason.contains("certificate") || reason.contains("majority"), "\(entry)")
        for host in hosts.dropFirst() {
            let honestEntry = try run.server(host)
            #expect(
                ["selected", "survivor"].contains(honestEntry["status"] as? String ?? ""), "\(honestEntry)")
            #expect(honestEntry["authenticated"] as? Bool == true)
        }
        for host in hosts {
            let nts = try CertificateTimeScene.Run.nts(try run.server(host))
            #expect(nts["certificate_time"] as? String == "bootstrap", "\(host): \(nts)")
        }
    }

    /// How the anchor is lost before the lone attack; the floor beside it stays.
    enum AnchorLoss: String, Sendable, CaseIterable {
        /// The anchor file is deleted.
        case removed
        /// The anchor file names another boot (its `boot_id` rewritten, still mode 0600): refused as
        /// after a reboot, which the floor is not.
        case otherBoot
    }

    @Test(arguments: AnchorLoss.allCases)
    func aLoneAttackerBeforeTheFloorIsRefusedAndNothingIsStored(_ loss: AnchorLoss) async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let honest = try scene.honestChrony()
        defer { honest.stop() }
        let attacker = try scene.attackerChrony()
        defer { attacker.stop() }
        try await Self.syncAtTheRightTime(scene, against: honest)
        honest.stop()

        switch loss {
        case .removed:
            try FileManager.default.removeItem(atPath: scene.state)
        case .otherBoot:
            let bootID = try #require(AnchorStore.systemBootID())
            let text = try String(contentsOfFile: scene.state, encoding: .utf8)
            #expect(text.contains(bootID))
            try Data(text.replacingOccurrences(of: bootID, with: "00000000-0000-0000-0000-000000000000").utf8)
                .write(to: URL(fileURLWithPath: scene.state))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scene.state)
            // The precondition, today's behaviour: that anchor is refused as another boot's.
            let now = try await scene.netclock(["now", "--state", scene.state], at: nil)
            #expect(now.status == 1, "\(now.printed)")
            #expect(now.stderr.lowercased().contains("boot"), "\(now.printed)")
        }
        let anchor = scene.contents(of: scene.state)
        let floor = try #require(scene.contents(of: scene.floor))

        let attack = try await scene.netclock(
            scene.ntsArguments("sync", [ntsKE(attacker)], extra: ["--state", scene.state]), at: .behind400Days
        )
        #expect(attack.status == 1, "\(attack.printed)")
        #expect(attack.stderr.contains("floor"), "\(attack.printed)")
        #expect(try attack.certificateTime() as? String == "bootstrap", "\(attack.stdout)")
        #expect(try attack.json()["authenticated"] as? Bool == false)
        let entry = try attack.server(ntsKE(attacker))
        #expect(entry["status"] as? String == "falseticker", "\(entry)")
        #expect((entry["reason"] as? String)?.contains("floor") == true, "\(entry)")
        #expect(scene.contents(of: scene.state) == anchor, "the anchor file changed (\(loss))")
        #expect(scene.contents(of: scene.floor) == floor, "the floor file changed")
    }
}
