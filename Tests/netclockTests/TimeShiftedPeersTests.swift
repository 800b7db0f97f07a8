import Foundation
import LoopbackServers
import Testing
import WallClockReference

/// The infrastructure of the certificate-time tests, proven without our CLI's certificate logic:
/// the time-shifted certificates are valid exactly where they claim (`openssl verify -attime`),
/// chrony's own NTS client sees the expired-key attacker as issue 21 describes (a client whose clock
/// is 400 days behind gets authenticated time from it; a correct one refuses its certificate), and
/// the shifted-clock runner moves the CLI's wall clock by exactly the shift (plain NTP, no
/// certificates).
///
/// Wall clocks here are the subject, not a timer: the defect is the CLI checking certificates
/// against its own wall clock, so the wall clock is moved (libfaketime, a whole number of days or
/// 1970) and the offset reported against it is the output. Nothing is timed; the only real
/// wall-clock readings are the instants around each run, within which libfaketime starts the shifted
/// clock (``WallClockShift/expectedOffset(spawnedAt:exitedAt:)``).
@Suite(
    .serialized, .enabled(if: CertificateTimeScene.runnable, CertificateTimeScene.toolsMissing),
    .wallClockReference)
struct TimeShiftedPeersTests {
    /// A certificate, an instant, and what `openssl verify` must say there.
    struct Check: Sendable, CustomTestStringConvertible {
        enum Subject: String, Sendable { case ca, honest, leaked }
        var subject: Subject
        var name: String
        /// The instant checked, from the certificates.
        var instant: @Sendable (TimeShiftedCertificates) -> Int64
        /// nil: verifies; else OpenSSL's words for the failure.
        var failure: String?
        var testDescription: String { "\(subject) \(name)" }
    }

    static let minute: Int64 = 60
    static let day: Int64 = 86_400
    static let notYetValid = "certificate is not yet valid"
    static let expired = "certificate has expired"

    /// Each end of each period is checked a minute inside and a minute outside (the periods are read
    /// before the `openssl` runs, which take seconds: see ``TimeShiftedCertificates/caValidity``), and
    /// the clients' wrong clocks are checked against the honest leaf.
    static let checks: [Check] = [
        Check(subject: .ca, name: "just valid", instant: { $0.caValidity.lowerBound + minute }, failure: nil),
        Check(
            subject: .ca, name: "before", instant: { $0.caValidity.lowerBound - minute }, failure: notYetValid
        ),
        Check(subject: .ca, name: "at the end", instant: { $0.caValidity.upperBound - minute }, failure: nil),
        Check(subject: .ca, name: "after", instant: { $0.caValidity.upperBound + minute }, failure: expired),
        Check(subject: .ca, name: "at −400 d", instant: { $0.madeAt - 400 * day }, failure: nil),
        Check(subject: .ca, name: "at +400 d", instant: { $0.madeAt + 400 * day }, failure: nil),
        Check(subject: .ca, name: "in 1970", instant: { _ in day }, failure: notYetValid),
        Check(
            subject: .honest, name: "now", instant: { $0.honestValidity.lowerBound + minute }, failure: nil),
        Check(
            subject: .honest, name: "at the end", instant: { $0.honestValidity.upperBound - minute },
            failure: nil),
        Check(
            subject: .honest, name: "after", instant: { $0.honestValidity.upperBound + minute },
            failure: expired),
        Check(subject: .honest, name: "at −20 d", instant: { $0.madeAt - 20 * day }, failure: notYetValid),
        Check(subject: .honest, name: "at −400 d", instant: { $0.madeAt - 400 * day }, failure: notYetValid),
        Check(subject: .honest, name: "at +400 d", instant: { $0.madeAt + 400 * day }, failure: expired),
        Check(subject: .honest, name: "in 1970", instant: { _ in day }, failure: notYetValid),
        Check(
            subject: .leaked, name: "when issued", instant: { $0.leakedValidity.lowerBound + minute },
            failure: nil),
        Check(
            subject: .leaked, name: "before", instant: { $0.leakedValidity.lowerBound - minute },
            failure: notYetValid),
        Check(
            subject: .leaked, name: "at the end", instant: { $0.leakedValidity.upperBound - minute },
            failure: nil),
        Check(
            subject: .leaked, name: "after", instant: { $0.leakedValidity.upperBound + minute },
            failure: expired),
        Check(subject: .leaked, name: "now", instant: { $0.madeAt + minute }, failure: expired),
    ]

    @Test(arguments: checks)
    func certificatesAreValidExactlyWhereTheyClaim(_ check: Check) throws {
        let certificates = try TimeShiftedCertificates.require()
        let openssl = try #require(TestCertificates.opensslPath, "openssl is not installed")
        let file: String
        switch check.subject {
        case .ca: file = certificates.caFile
        case .honest: file = certificates.certificate(.honest)
        case .leaked: file = certificates.certificate(.leaked)
        }
        let instant = check.instant(certificates)
        let output = try InteropTool.run(
            openssl, ["verify", "-CAfile", certificates.caFile, "-attime", "\(instant)", file],
            timeout: .seconds(10))
        if let failure = check.failure {
            #expect(output.status != 0, "\(output.combined)")
            #expect(output.stderr.contains(failure), "\(output.combined)")
        } else {
            #expect(output.status == 0, "\(output.combined)")
            #expect(output.stdout.contains("\(file): OK"), "\(output.combined)")
        }
    }

    /// Where chrony's client asks: an NTS server's ports and the CA to trust.
    struct QueryTarget: Sendable {
        var ntpPort: UInt16
        var ntsPort: UInt16
        var caFile: String

        init(_ server: ChronyNTSServer) {
            (ntpPort, ntsPort, caFile) = (server.ntpPort, server.ntsPort, server.caFile)
        }
    }

    /// What one `chronyd -Q` run against an NTS server printed (blocking).
    static func chronydQuery(
        _ target: QueryTarget, chronyd: String, clock: WallClockShift?, timeLimit: Int
    ) throws -> (output: InteropTool.Output, wrongBy: Double?) {
        let source =
            "server 127.0.0.1 port \(target.ntpPort) nts ntsport \(target.ntsPort) \(InteropTests.chronydPolling)"
        let output = try InteropTool.run(
            chronyd,
            [
                "-Q", "-u", "root", "-t", "\(timeLimit)", source, "ntstrustedcerts \(target.caFile)",
                "nosystemcert",
            ],
            timeout: .seconds(Int64(timeLimit) + 5), environment: try clock?.environment() ?? [:])
        let wrongBy = output.combined.split(separator: "\n").lazy.compactMap { line -> Double? in
            guard let range = line.range(of: "System clock wrong by ") else { return nil }
            return Double(line[range.upperBound...].prefix { $0 != " " })
        }.first
        return (output, wrongBy)
    }

    /// chrony's own client whose clock is 400 days behind gets authenticated time from the attacker,
    /// its clock agreeing with last year's time (|X| below the 1 ms of two readings of one clock,
    /// both shifted by the same libfaketime offset): the leaked key works against a wrong clock.
    /// With this machine's clock chrony refuses the same certificate (expired), and gets time from
    /// the honest server.
    ///
    /// Each client run has a server of its own (two attackers set up alike), so that each server's
    /// counters tell of one client only and the three runs go at once.
    @Test func chronyAcceptsTheAttackerOnlyWithAClockAsWrongAsItsOwn() async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let chronyd = try InteropTool.require("chronyd", package: "chrony")
        let chronyc = try InteropTool.require("chronyc", package: "chrony")
        let attacker = try scene.attackerChrony()
        defer { attacker.stop() }
        let refusingAttacker = try scene.attackerChrony()
        defer { refusingAttacker.stop() }
        let honest = try scene.honestChrony()
        defer { honest.stop() }
        let before = try attacker.serverStatistics(chronyc: chronyc)
        let beforeRefusal = try refusingAttacker.serverStatistics(chronyc: chronyc)

        let (attackerTarget, refusingTarget, honestTarget) = (
            QueryTarget(attacker), QueryTarget(refusingAttacker), QueryTarget(honest)
        )
        async let fooledRun = BlockingCases.onThread {
            try Self.chronydQuery(attackerTarget, chronyd: chronyd, clock: .behind400Days, timeLimit: 10)
        }
        async let refusedRun = BlockingCases.onThread {
            try Self.chronydQuery(refusingTarget, chronyd: chronyd, clock: nil, timeLimit: 2)
        }
        async let correctRun = BlockingCases.onThread {
            try Self.chronydQuery(honestTarget, chronyd: chronyd, clock: nil, timeLimit: 10)
        }
        let fooled = try await fooledRun
        let refused = try await refusedRun
        let correct = try await correctRun

        let wrongBy = try #require(fooled.wrongBy, "\(fooled.output.combined)\nserver log:\n\(attacker.log)")
        #expect(
            abs(wrongBy) < InteropTests.clientTolerance, "chronyd -Q at −400 d: wrong by \(wrongBy) s")
        let after = try attacker.serverStatistics(chronyc: chronyc)
        #expect(ChronyNTSServer.increase(of: "Authenticated NTP packets", from: before, to: after) >= 1)

        #expect(refused.wrongBy == nil, "\(refused.output.combined)")
        let afterRefusal = try refusingAttacker.serverStatistics(chronyc: chronyc)
        #expect(
            ChronyNTSServer.increase(of: "Authenticated NTP packets", from: beforeRefusal, to: afterRefusal)
                == 0,
            "before \(beforeRefusal), after \(afterRefusal)")
        // The refusal is the certificate's: the client did reach the attacker's NTS-KE.
        #expect(
            ChronyNTSServer.increase(of: "NTS-KE connections accepted", from: beforeRefusal, to: afterRefusal)
                >= 1, "before \(beforeRefusal), after \(afterRefusal)")

        let honestWrongBy = try #require(
            correct.wrongBy, "\(correct.output.combined)\nserver log:\n\(honest.log)")
        #expect(
            abs(honestWrongBy) < InteropTests.clientTolerance, "chronyd -Q: wrong by \(honestWrongBy) s")
    }

    /// The runner moves only the CLI's wall clock, by exactly the shift: plain NTP against an exact
    /// fake server (no certificate involved) reports the expected offset within its bound plus 1 ms
    /// (pairing the boot-time clock with the wall clock, as NTSCLITests allows).
    @Test(arguments: WallClockShift.all)
    func theRunnerShiftsTheWallClockByTheShift(_ shift: WallClockShift) async throws {
        let scene = try CertificateTimeScene()
        defer { scene.remove() }
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration())
        defer { server.stop() }
        let run = try await scene.netclock(
            [
                "query", "127.0.0.1:\(server.port)", "--samples", "1", "--interval", "0", "--timeout", "1",
                "--json",
            ],
            at: shift)
        #expect(run.status == 0, "\(run.printed)")
        try run.expectTrueTime(shift: shift)
    }
}
