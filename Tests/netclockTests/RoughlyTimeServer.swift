import Foundation
import Testing

/// `roughly server run` (PyPI `roughly`, a Roughtime server of its own implementation) on
/// 127.0.0.1 with a fresh key, for `netclock set --roughtime`: its time is this machine's, signed.
/// The venv is `NETCLOCK_ROUGHLY_VENV`, else `.build/roughly-venv` (what .ci/run creates).
final class RoughlyTimeServer {
    let port: UInt16
    let publicKey: String
    let process: Process
    let directory: String

    /// The venv's `roughly`, if installed.
    static let roughly: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../..").standardizedFileURL.path
        let venv =
            ProcessInfo.processInfo.environment["NETCLOCK_ROUGHLY_VENV"] ?? root + "/.build/roughly-venv"
        let program = venv + "/bin/roughly"
        return FileManager.default.isExecutableFile(atPath: program) ? program : nil
    }()

    /// Whether the Roughtime case can run, or CI requires it.
    static var runnable: Bool { roughly != nil || CLIRunner.peersRequired }

    /// Makes a key (`roughly server keygen`), starts the server on a free port in 20000-32767.
    init(in directory: String) throws {
        let roughly = try #require(Self.roughly, "roughly not found (NETCLOCK_ROUGHLY_VENV)")
        self.directory = directory
        let keygen = Process()
        keygen.executableURL = URL(fileURLWithPath: roughly)
        keygen.arguments = ["server", "keygen"]
        keygen.currentDirectoryURL = URL(fileURLWithPath: directory)
        let printed = Pipe()
        keygen.standardOutput = printed
        try keygen.run()
        let text = String(decoding: printed.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        keygen.waitUntilExit()
        let key = text.split(separator: "\n").first { $0.hasPrefix("Public key (base64): ") }
        publicKey = try #require(key.map { String($0.dropFirst("Public key (base64): ".count)) }, "\(text)")
        let environment = try String(contentsOfFile: directory + "/.env", encoding: .utf8)
        let secret = try #require(
            environment.split(separator: "\n").first { $0.hasPrefix("ROUGHLY_PRIVATE_KEY=") }
                .map { String($0.dropFirst("ROUGHLY_PRIVATE_KEY=".count)) })
        port = UInt16.random(in: 20_000...32_767)
        process = Process()
        process.executableURL = URL(fileURLWithPath: roughly)
        process.arguments = ["server", "run", "--host", "127.0.0.1", "-p", "\(port)", "--no-grease"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "ROUGHLY_PRIVATE_KEY": secret, "PYTHONUNBUFFERED": "1",
        ]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    /// Stops the server (SIGKILL: the test runner's children may block SIGTERM).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A server list naming this server alone, written into the directory.
    func ecosystemFile() throws -> String {
        let path = directory + "/roughly-ecosystem.json"
        let entry = """
            {"servers": [{"name": "roughly-\(port)", "version": 1, "publicKeyType": "ed25519",
             "publicKey": "\(publicKey)", "addresses": [{"protocol": "udp", "address": "127.0.0.1:\(port)"}]}]}
            """
        try entry.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Waits until `netclock query --roughtime` gets its time (Python starts in a second or two),
    /// at most 20 s.
    func waitUntilAnswering() async throws {
        let ecosystem = try ecosystemFile()
        for _ in 0..<40 {
            let run = try await CLIRunner.run(
                ["query", "--roughtime", ecosystem, "--timeout", "0.5"], timeout: 10)
            if run.status == 0 { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        Issue.record("roughly server on port \(port) did not answer")
    }
}
