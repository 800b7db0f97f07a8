import Foundation
import LoopbackServers
import NetClockPlatform
import NetClockTestSupport
import NetClockTLS
import Roughtime
import Testing

/// Finding and running `roughly` (PyPI), the independent Roughtime client and server the interop
/// tests talk to, and libfaketime for a validly signed liar.
///
/// `roughly` lives in a Python (≥ 3.12) virtual environment: `NETCLOCK_ROUGHLY_VENV` names it;
/// else `.build/roughly-venv` in the package (where `.ci/run` creates it). Without one the tests
/// skip with that reason; with `NETCLOCK_REQUIRE_PEERS=1` (CI) they fail instead.
enum RoughlyPeer {
    /// Whether CI requires every peer.
    static var peersRequired: Bool { TestExecutables.peersRequired }

    /// The package's root directory (this file is Tests/RoughtimeTests/Support/RoughlyPeer.swift).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The virtual environment holding `roughly`, when there is one.
    static let venv: String? = {
        let environment = ProcessInfo.processInfo.environment["NETCLOCK_ROUGHLY_VENV"]
        for candidate in [environment, packageRoot + "/.build/roughly-venv"].compactMap({ $0 }) {
            if FileManager.default.isExecutableFile(atPath: candidate + "/bin/roughly") { return candidate }
        }
        return nil
    }()

    /// Whether the tests run: `roughly` is there, or CI requires it (and a missing one fails).
    static var runnable: Bool { peersRequired || venv != nil }

    /// Why they are skipped.
    static let skipReason: Comment =
        "roughly not found: set NETCLOCK_ROUGHLY_VENV to a venv made with `python3.12 -m venv V && V/bin/pip install 'roughly[cli]'`, or create .build/roughly-venv; NETCLOCK_REQUIRE_PEERS=1 makes this fail"

    /// The venv, or a test failure when CI requires it.
    static func requireVenv(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            venv, "roughly is not installed and NETCLOCK_REQUIRE_PEERS=1 requires it",
            sourceLocation: sourceLocation)
    }

    /// A fresh private directory for a test's files.
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-roughtime-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    /// Runs `roughly ARGUMENTS` (or the venv's `python ARGUMENTS` with `python: true`), waits at
    /// most `timeout`, and returns its exit status and output.
    static func run(_ arguments: [String], python: Bool = false, timeout: Duration = .seconds(20)) throws
        -> (status: Int32, output: String)
    {
        let venv = try requireVenv()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outputPath = directory + "/output"
        let process = try SpawnedProcess(
            venv + (python ? "/bin/python" : "/bin/roughly"), arguments, stdout: outputPath,
            stderr: outputPath)
        let finished = process.waitForExit(within: timeout)
        process.terminate()
        let output = PeerFailure.contents(of: outputPath)
        guard finished else { throw PeerFailure("roughly \(arguments) did not finish: \(output)") }
        return (process.exitStatus ?? -1, output)
    }

    /// Runs `roughly ARGUMENTS` for each of `commands`, one after another in one Python process, and
    /// returns what each printed (standard output and error together), in order. Each is what the
    /// `roughly` script runs, its entry point `roughly.cli.cli`, given those arguments; one process
    /// pays Python's start-up (about 0.25 s of CPU, most of a query's cost) once, not for each.
    /// A command must bound its own wait at 5 s (a query's `--timeout 5`).
    static func runInOneProcess(_ commands: [[String]]) throws -> [String] {
        let script = """
            import contextlib, io, json, sys
            from roughly.cli import cli
            outputs = []
            for arguments in json.loads(sys.argv[1]):
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                    try:
                        cli.main(args=arguments, prog_name="roughly", standalone_mode=False)
                    except SystemExit:
                        pass
                    except Exception as error:
                        print(f"roughly raised {error!r}")
                outputs.append(printed.getvalue())
            print(json.dumps(outputs))
            """
        let json = String(decoding: try JSONSerialization.data(withJSONObject: commands), as: UTF8.self)
        // Each command's own wait (a query's `--timeout 5`) plus a second, and 10 s for Python.
        let result = try run(
            ["-c", script, json], python: true, timeout: .seconds(10 + 6 * Int64(commands.count)))
        let last = result.output.split(separator: "\n").last.map(String.init) ?? ""
        guard result.status == 0,
            let outputs = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String],
            outputs.count == commands.count
        else { throw PeerFailure("roughly \(commands) (status \(result.status)): \(result.output)") }
        return outputs
    }

    /// Whether `roughly.ecosystem.confirm_malfeasance` accepts the report in `file` (the bare list,
    /// or the RFC's object, whose `responses` it is given).
    static func confirmMalfeasance(_ file: String) throws -> (confirmed: Bool, output: String) {
        let script = """
            import json, sys
            from roughly.ecosystem import confirm_malfeasance
            report = json.load(open(sys.argv[1]))
            if isinstance(report, dict):
                report = report["responses"]
            print("confirmed" if confirm_malfeasance(report) else "not confirmed")
            """
        let result = try run(["-c", script, file], python: true)
        return (
            result.status == 0 && result.output.contains("confirmed")
                && !result.output.contains("not confirmed"), result.output
        )
    }

    /// A UDP port free on 127.0.0.1, at random in 20000–32767 (below the ephemeral range, so other
    /// tests' port-0 sockets do not take it before the peer binds it).
    static func freePort() throws -> UInt16 {
        for _ in 0..<64 {
            let port = UInt16.random(in: 20_000...32_767)
            if let socket = try? UDPServerSocket(binding: SocketAddress.loopback(.ipv4, port: port)) {
                socket.close()
                return port
            }
        }
        throw PeerFailure("no free UDP port on 127.0.0.1")
    }
}

/// `roughly server run` on 127.0.0.1 with a long-term key of ours, optionally under libfaketime
/// (a validly signed liar). Stopped when released.
final class RoughlyServer {
    let port: UInt16
    let key: Ed25519.PrivateKey
    let process: SpawnedProcess
    /// Where the server's output goes.
    let logPath: String
    let directory: String

    /// One server to start: the seed of its long-term key and libfaketime's `FAKETIME` (e.g. `+1h`,
    /// with the monotonic clocks left alone; nil: this machine's clock).
    struct Spec {
        var seed: UInt64
        var fakeTime: String? = nil
    }

    /// Starts every server of `specs` at once, so their Python start-ups overlap, then waits until
    /// each answers; in the order of `specs`.
    static func startAll(_ specs: [Spec]) throws -> [RoughlyServer] {
        let servers = try specs.map { try RoughlyServer(spawning: $0) }
        for server in servers { try server.waitUntilAnswering() }
        return servers
    }

    /// Starts the server (greasing off: greased replies are deliberately invalid now and then).
    private init(spawning spec: Spec) throws {
        let venv = try RoughlyPeer.requireVenv()
        key = try TestSupport.key(1000 + spec.seed)
        port = try RoughlyPeer.freePort()
        directory = try RoughlyPeer.temporaryDirectory()
        var environment = ["ROUGHLY_PRIVATE_KEY": Base64.encode(key.seed), "PYTHONUNBUFFERED": "1"]
        if let fakeTime = spec.fakeTime {
            environment.merge(LibFaketime.environment(fakeTime, library: try LibFaketime.require())) { $1 }
        }
        logPath = directory + "/server.log"
        process = try SpawnedProcess(
            venv + "/bin/roughly", ["server", "run", "--host", "127.0.0.1", "-p", "\(port)", "--no-grease"],
            stdout: logPath, stderr: logPath, environment: environment)
    }

    /// Queries the server until it answers, pausing 20 ms between tries, at most 20 s.
    func waitUntilAnswering() throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        var options = RoughtimeClient.Options()
        options.timing = RoughtimeExchange.Timing(timeout: .milliseconds(300), firstRetransmission: nil)
        options.passes = 1
        while (try? RoughtimeClient().query([server], options: options).agreedTime()) == nil {
            guard process.isRunning, clock.now < deadline else {
                throw PeerFailure(
                    "roughly server did not answer on port \(port): \(PeerFailure.contents(of: logPath))")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    deinit { stop() }

    /// Stops the server by its pid and deletes its directory. Idempotent.
    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `127.0.0.1:port`.
    var address: String { "127.0.0.1:\(port)" }

    /// The server as our client is told of it.
    var server: RoughtimeServer {
        RoughtimeServer(name: "roughly-\(port)", address: address, publicKey: key.publicKey, versions: [.rfc])
    }

    /// What a test needs of it, as a value tasks can share.
    var endpoint: RoughlyServers.Endpoint {
        RoughlyServers.Endpoint(port: port, server: server, ecosystemEntry: ecosystemEntry)
    }

    /// Its entry in a server list.
    var ecosystemEntry: String {
        """
        {"name": "roughly-\(port)", "version": 1, "publicKeyType": "ed25519", "publicKey": "\(Base64.encode(key.publicKey))",
         "addresses": [{"protocol": "udp", "address": "\(address)"}]}
        """
    }
}

/// A failure while driving a peer program, with what it printed.
struct PeerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// What a peer has written to `path` so far (empty when nothing could be read).
    static func contents(of path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
