import Foundation

/// A test CA and certificates made with the `openssl` command into a temporary directory, once per
/// test process (EC P-256, valid from a day before until two days after), as TESTING.md's NTS section describes: what the
/// loopback TLS servers (NTS-KE, HTTPS) serve and what their clients trust in tests.
package struct TestCertificates: Sendable {
    /// The directory holding every file.
    package var directory: String
    /// The test CA's certificate, which clients trust.
    package var caFile: String { directory + "/ca.pem" }
    /// A server certificate issued by the test CA for `localhost`, 127.0.0.1 and ::1.
    package var serverCertificate: String { directory + "/server.pem" }
    /// Its key.
    package var serverKey: String { directory + "/server.key" }
    /// A self-signed certificate for the same names, which no client here trusts.
    package var selfSignedCertificate: String { directory + "/self.pem" }
    /// Its key.
    package var selfSignedKey: String { directory + "/self.key" }
    /// A certificate issued by the test CA for the same names whose validity ended before it
    /// began (expired whenever checked), with ``serverKey``.
    package var expiredCertificate: String { directory + "/expired.pem" }
    /// A certificate issued by the test CA for `wrong.example` only, with ``serverKey``.
    package var wrongNameCertificate: String { directory + "/wrong-name.pem" }

    /// A failure to make the certificates, with the command's output.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        package var description: String
    }

    /// The `openssl` command, if installed.
    package static let opensslPath: String? = ["/usr/bin/openssl", "/bin/openssl", "/usr/local/bin/openssl"]
        .first {
            FileManager.default.isExecutableFile(atPath: $0)
        }

    /// Whether CI requires every external tool (`NETCLOCK_REQUIRE_PEERS=1`): then a missing
    /// `openssl` fails the tests instead of skipping them.
    package static let toolsRequired = TestExecutables.peersRequired

    /// Whether tests needing certificates should run: `openssl` is installed, or CI requires it.
    package static let runnable = opensslPath != nil || toolsRequired

    /// The certificates, made on first use.
    package static let shared: Result<TestCertificates, Failure> = make()

    /// The certificates, or the failure to make them (which fails the calling test).
    package static func require() throws -> TestCertificates {
        try shared.get()
    }

    private static func make() -> Result<TestCertificates, Failure> {
        guard let openssl = opensslPath else {
            return .failure(Failure(description: "openssl is not installed (apt-get install -y openssl)"))
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netclock-tls-\(ProcessInfo.processInfo.processIdentifier)").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // time.internal: a name only a test proxy resolves (Squid's hosts_file), for origins
            // reachable through the proxy alone.
            try "subjectAltName=DNS:localhost,DNS:time.internal,IP:127.0.0.1,IP:::1\n".write(
                toFile: directory + "/san.ext", atomically: true, encoding: .utf8)
            try "subjectAltName=DNS:wrong.example\n".write(
                toFile: directory + "/wrong.ext", atomically: true, encoding: .utf8)
        } catch {
            return .failure(Failure(description: "cannot prepare \(directory): \(error)"))
        }
        // `openssl ca` rather than `req -x509` and `x509 -req`, for its -startdate: every certificate
        // is valid from a day before it was made (OpenSSL 3.0 has no other way to backdate one),
        // so a server whose clock runs seconds behind, queried first in a fresh test process, is
        // not before its certificate.
        try? """
        [ ca ]
        default_ca = issuer
        [ issuer ]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = anything
        unique_subject = no
        [ anything ]
        commonName = supplied
        [ authority ]
        basicConstraints = critical,CA:true
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash

        """.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try? "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try? "01\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        let day: TimeInterval = 86_400
        let now = Date()
        func validity(from start: TimeInterval, to end: TimeInterval) -> [String] {
            ["-startdate", generalizedTime(now + start), "-enddate", generalizedTime(now + end)]
        }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let sign = ["ca", "-batch", "-config", "ca.cnf", "-notext"]
        let issue = sign + ["-cert", "ca.pem", "-keyfile", "ca.key"]
        let commands: [[String]] = [
            ["req", "-new"] + newKey + [
                "-keyout", "ca.key", "-out", "ca.csr", "-subj", "/CN=NetClock Test CA",
            ],
            sign + [
                "-selfsign", "-keyfile", "ca.key", "-in", "ca.csr", "-out", "ca.pem", "-extensions",
                "authority",
            ]
                + validity(from: -day, to: 2 * day),
            ["req", "-new"] + newKey + [
                "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost",
            ],
            issue + ["-in", "server.csr", "-out", "server.pem", "-extfile", "san.ext"]
                + validity(from: -day, to: 2 * day),
            // Ends a day before it begins: expired whenever it is checked.
            issue + ["-in", "server.csr", "-out", "expired.pem", "-extfile", "san.ext"]
                + validity(from: -day, to: -2 * day),
            issue + ["-in", "server.csr", "-out", "wrong-name.pem", "-extfile", "wrong.ext"]
                + validity(from: -day, to: 2 * day),
            ["req", "-new"] + newKey + ["-keyout", "self.key", "-out", "self.csr", "-subj", "/CN=localhost"],
            sign + [
                "-selfsign", "-keyfile", "self.key", "-in", "self.csr", "-out", "self.pem", "-extfile",
                "san.ext",
            ]
                + validity(from: -day, to: 2 * day),
        ]
        for arguments in commands {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            do {
                try process.run()
            } catch {
                return .failure(Failure(description: "cannot run openssl: \(error)"))
            }
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                let text = String(decoding: printed, as: UTF8.self)
                return .failure(
                    Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(text)"))
            }
        }
        return .success(TestCertificates(directory: directory))
    }

    /// `instant` as `openssl ca` takes a date: `YYYYMMDDHHMMSSZ`, UTC.
    private static func generalizedTime(_ instant: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: instant)
    }
}
