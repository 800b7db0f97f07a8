import LoopbackServers
import Foundation

/// `openssl s_server` on a free port of 127.0.0.1, serving one connection: a real TLS peer for
/// the interoperability tests. Its standard input stays open (at its end `s_server` quits) and its
/// output goes to a file, read once it has exited.
final class OpenSSLServerProcess {
    /// A failure to start the server, with what it printed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The port it accepts on.
    let port: UInt16
    private let process: Process
    private let input: Pipe
    private let outputPath: String

    /// Starts `openssl s_server` with `arguments` after the accept, certificate and key options, and
    /// waits (at most 5 s) until it accepts.
    init(openssl: String, certificates: TestCertificates, arguments: [String]) throws {
        outputPath = certificates.directory + "/s_server-\(UUID().uuidString).out"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil) else {
            throw Failure(description: "cannot create \(outputPath)")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        input = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments =
            [
                "s_server", "-accept", "127.0.0.1:0", "-naccept", "1", "-cert",
                certificates.serverCertificate, "-key",
                certificates.serverKey,
            ] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(5) {
            if let port = Self.acceptedPort(
                in: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
            {
                self.port = port
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.terminate()
        process.waitUntilExit()
        let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        throw Failure(description: "openssl s_server did not start accepting within 5 s: \(printed)")
    }

    /// Waits (at most 5 s) for it to end its connection, then closes its input, waits (at most
    /// 5 s more, then stops it by its pid) and returns what it printed.
    ///
    /// The input is closed only once the connection has ended because `s_server` quits at the end
    /// of its input, possibly before it has printed what the client sent.
    func finish() -> String {
        var started = ContinuousClock.now
        while process.isRunning && ContinuousClock.now - started < .seconds(5) {
            let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if printed.contains("CONNECTION CLOSED") || printed.contains("ERROR") { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        try? input.fileHandleForWriting.close()
        started = ContinuousClock.now
        while process.isRunning && ContinuousClock.now - started < .seconds(5) {
            Thread.sleep(forTimeInterval: 0.02)
        }
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// The port of the `ACCEPT 127.0.0.1:PORT` line.
    private static func acceptedPort(in output: String) -> UInt16? {
        for line in output.split(separator: "\n") where line.hasPrefix("ACCEPT 127.0.0.1:") {
            return UInt16(line.dropFirst("ACCEPT 127.0.0.1:".count))
        }
        return nil
    }

    /// The hexadecimal value of its `Keying material:` line, in lower case.
    static func keyingMaterial(in output: String) -> String? {
        for line in output.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Keying material:") {
                return trimmed.dropFirst("Keying material:".count).trimmingCharacters(in: .whitespaces)
                    .lowercased()
            }
        }
        return nil
    }
}
