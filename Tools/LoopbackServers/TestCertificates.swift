import Foundation

/// A test CA and certificates made with the `openssl` command into a temporary directory, once per
/// test process (EC P-256, valid for two days), as TESTING.md's NTS section describes: what the
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
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]
        let commands: [[String]] = [
            ["req", "-x509"] + newKey + [
                "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=NetClock Test CA",
            ],
            ["req", "-new"] + newKey.dropLast(2) + [
                "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "san.ext",
            ],
            // `-days -1` ends the validity a day before it begins: expired whenever it is checked.
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "expired.pem", "-days", "-1", "-extfile", "san.ext",
            ],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "wrong-name.pem", "-days", "2", "-extfile", "wrong.ext",
            ],
            ["req", "-x509"] + newKey + [
                "-keyout", "self.key", "-out", "self.pem", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
            ],
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
}
