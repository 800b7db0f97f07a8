import Foundation
import NetClockTLS

/// A test CA and leaf certificates whose validity periods are placed in time, for testing clients
/// whose wall clock is wrong (TESTING.md, "A wrong clock against certificates"), made once per test
/// process with the `openssl` command under libfaketime (``LibFaketime``):
///
/// - the CA, made under `FAKETIME=-500d` and valid 1000 days: from 500 days ago to 500 days ahead,
///   so it covers every shifted client (−400 d, +400 d, −20 d) except a dead RTC's 1970;
/// - the **honest** leaf, issued now and valid 3 days (``honestValidity``), for `localhost`,
///   127.0.0.1 and ::1: any client more than a few days off fails a plain wall-clock check;
/// - the **leaked** leaf, an old key of the same CA for the same names, issued under
///   `FAKETIME=-400d` and valid 30 days (``leakedValidity``): it expired about 370 days ago. A server
///   holding it and running last year's clock is the attacker that certificate checks against a
///   wrong wall clock let in.
///
/// Every key is EC P-256 and its own. The files are private (0600, the `openssl` default for keys):
/// chronyd reads them as root (``ChronyNTSServer`` runs it with `-u root`).
package struct TimeShiftedCertificates: Sendable {
    /// Which leaf a server presents.
    package enum Leaf: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Issued now, valid 3 days.
        case honest
        /// Issued 400 days ago, valid 30 days: expired a year ago.
        case leaked

        /// `honest` or `leaked`.
        package var description: String { rawValue }
    }

    /// The directory holding every file.
    package var directory: String
    /// When the certificates were made (seconds since 1970, this machine's real clock).
    package var madeAt: Int64

    /// How far back the CA's validity begins.
    package static let caBackdate = Duration.seconds(500 * 86_400)
    /// How long the CA is valid.
    package static let caLifetime = Duration.seconds(1_000 * 86_400)
    /// How long the honest leaf is valid, from when it was made.
    package static let honestLifetime = Duration.seconds(3 * 86_400)
    /// How long before ``madeAt`` the leaked leaf was issued.
    package static let leakedBackdate = Duration.seconds(400 * 86_400)
    /// How long the leaked leaf was valid.
    package static let leakedLifetime = Duration.seconds(30 * 86_400)

    /// The CA's certificate, which clients trust (`--ca-file`).
    package var caFile: String { directory + "/ca.pem" }
    /// The certificate of `leaf` (PEM).
    package func certificate(_ leaf: Leaf) -> String { directory + "/\(leaf).pem" }
    /// The private key of `leaf`.
    package func key(_ leaf: Leaf) -> String { directory + "/\(leaf).key" }

    /// The CA's validity period (seconds since 1970). ``madeAt`` is read before the first `openssl`
    /// run, so each end of a real period lies at or after the one given here, later by at most the
    /// time the runs took (well under a minute).
    package var caValidity: ClosedRange<Int64> {
        Self.period(madeAt, back: Self.caBackdate, lasting: Self.caLifetime)
    }
    /// The honest leaf's validity period.
    package var honestValidity: ClosedRange<Int64> {
        Self.period(madeAt, back: .zero, lasting: Self.honestLifetime)
    }
    /// The leaked leaf's validity period.
    package var leakedValidity: ClosedRange<Int64> {
        Self.period(madeAt, back: Self.leakedBackdate, lasting: Self.leakedLifetime)
    }

    /// A failure to make the certificates, with the command's output.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        package var description: String
    }

    /// Whether tests needing the set should run: `openssl` and libfaketime are installed, or CI
    /// requires every tool (then ``require()`` fails the test).
    package static var runnable: Bool {
        (TestCertificates.opensslPath != nil && LibFaketime.path != nil) || TestCertificates.toolsRequired
    }

    /// The set, made on first use.
    package static let shared: Result<TimeShiftedCertificates, Failure> = make()

    /// The set, or the failure to make it (which fails the calling test).
    package static func require() throws -> TimeShiftedCertificates {
        try shared.get()
    }

    private static func period(_ madeAt: Int64, back: Duration, lasting: Duration) -> ClosedRange<Int64> {
        let start = madeAt - back.components.seconds
        return start...(start + lasting.components.seconds)
    }

    /// One `openssl` run: its arguments and libfaketime's `FAKETIME`, if shifted.
    private struct Step {
        var arguments: [String]
        var fakeTime: String?
    }

    private static func make() -> Result<TimeShiftedCertificates, Failure> {
        guard let openssl = TestCertificates.opensslPath else {
            return .failure(Failure(description: "openssl is not installed (apt-get install -y openssl)"))
        }
        guard let library = LibFaketime.path else {
            return .failure(Failure(description: LibFaketime.missingReason))
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netclock-shifted-tls-\(ProcessInfo.processInfo.processIdentifier)").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n".write(
                toFile: directory + "/san.ext", atomically: true, encoding: .utf8)
        } catch {
            return .failure(Failure(description: "cannot prepare \(directory): \(error)"))
        }
        let madeAt = Int64(Date().timeIntervalSince1970)
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        func days(_ duration: Duration) -> String { "\(duration.components.seconds / 86_400)" }
        func issue(_ leaf: Leaf, lifetime: Duration, fakeTime: String?) -> [Step] {
            [
                Step(
                    arguments: ["req", "-new"] + newKey + [
                        "-keyout", "\(leaf).key", "-out", "\(leaf).csr", "-subj", "/CN=localhost",
                    ]),
                Step(
                    arguments: [
                        "x509", "-req", "-in", "\(leaf).csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                        "-CAcreateserial", "-out", "\(leaf).pem", "-days", days(lifetime), "-extfile",
                        "san.ext",
                    ], fakeTime: fakeTime),
            ]
        }
        let steps =
            [
                Step(
                    arguments: ["req", "-x509"] + newKey + [
                        "-days", days(caLifetime), "-keyout", "ca.key", "-out", "ca.pem", "-subj",
                        "/CN=NetClock Time-Shifted Test CA",
                    ], fakeTime: "-\(days(caBackdate))d")
            ] + issue(.honest, lifetime: honestLifetime, fakeTime: nil)
            + issue(.leaked, lifetime: leakedLifetime, fakeTime: "-\(days(leakedBackdate))d")
        for step in steps {
            if let failure = run(openssl, step, library: library, in: directory) { return .failure(failure) }
        }
        return .success(TimeShiftedCertificates(directory: directory, madeAt: madeAt))
    }

    private static func run(_ openssl: String, _ step: Step, library: String, in directory: String)
        -> Failure?
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = step.arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        if let fakeTime = step.fakeTime {
            environment.merge(LibFaketime.environment(fakeTime, library: library)) { $1 }
        }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return Failure(description: "cannot run openssl: \(error)")
        }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let shift = step.fakeTime.map { "FAKETIME=\($0) " } ?? ""
            return Failure(
                description: "\(shift)openssl \(step.arguments.joined(separator: " ")) failed: "
                    + String(decoding: printed, as: UTF8.self))
        }
        return nil
    }
}

extension HTTPSTimeServerTLS {
    /// Serves `leaf` of the time-shifted set, TLS 1.2 to 1.3.
    package init(_ certificates: TimeShiftedCertificates, leaf: TimeShiftedCertificates.Leaf) {
        certificateChainFile = certificates.certificate(leaf)
        privateKeyFile = certificates.key(leaf)
        minimumVersion = .tls12
        maximumVersion = nil
        handshakeTimeout = .seconds(5)
    }
}
