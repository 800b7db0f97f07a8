import Foundation
import LoopbackServers
import Testing

/// Runs `netclock set` so that it can never change this machine's clock: always without
/// `CAP_SYS_TIME` in its bounding and inheritable sets (`setpriv`), so the kernel refuses any
/// clock-changing call, and, where the call should succeed, under the preload library of
/// `Tools/ClockCallRecorder`, which records each clock-changing call as a JSON line and reports
/// success without calling the kernel.
///
/// The library is built once per test process with `gcc` into a private temporary directory.
enum ClockCallRecorder {
    /// The recorder's C source, in this package.
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tools/ClockCallRecorder/clock-call-recorder.c").standardizedFileURL
        .path

    /// The built library, or why there is none.
    static let library: Result<String, RecorderUnavailable> = {
        guard CLIRunner.hasTool("gcc") else { return .failure(RecorderUnavailable("gcc is not installed")) }
        guard let directory = try? LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-recorder")
        else {
            return .failure(RecorderUnavailable("no temporary directory"))
        }
        let output = directory + "/libclockcallrecorder.so"
        let gcc = Process()
        gcc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gcc.arguments = ["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-o", output, source, "-ldl"]
        let errors = Pipe()
        gcc.standardError = errors
        do { try gcc.run() } catch { return .failure(RecorderUnavailable("gcc did not start: \(error)")) }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        gcc.waitUntilExit()
        guard gcc.terminationStatus == 0 else { return .failure(RecorderUnavailable("gcc failed: \(text)")) }
        return .success(output)
    }()

    /// Why the recorder cannot be used.
    struct RecorderUnavailable: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The prefix that drops `CAP_SYS_TIME` from the bounding and inheritable sets of what it runs.
    static let withoutSysTime = ["setpriv", "--bounding-set=-sys_time", "--inh-caps=-sys_time"]

    /// Whether `setpriv` can drop the capability here (it needs `CAP_SETPCAP`: root).
    static let canDropSysTime: Bool = {
        guard CLIRunner.hasTool("setpriv") else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = withoutSysTime + ["true"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Whether these tests can run: gcc, setpriv, root, chronyd, openssl and libfaketime; or CI
    /// requires every peer (`NETCLOCK_REQUIRE_PEERS=1`, a missing one then fails the test).
    static var runnable: Bool {
        CLIRunner.peersRequired
            || ((try? library.get()) != nil && canDropSysTime && CertificateTimeScene.runnable)
    }
    /// Why they skip.
    static let toolsMissing: Comment =
        "gcc, setpriv (util-linux, run as root), chronyd, openssl or libfaketime missing: netclock set is not run; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    /// A finished run and the clock calls it made (empty when none, or without the recorder).
    struct Run {
        var run: CertificateTimeScene.Run
        var calls: [[String: Any]]

        var status: Int32 { run.status }
        var printed: String { run.printed + "\ncalls: \(calls)" }
        func json() throws -> [String: Any] { try run.json() }
        /// The `set` object of `--json`.
        func set() throws -> [String: Any] {
            try #require(try json()["set"] as? [String: Any], "no set object in \(run.stdout)")
        }
    }

    /// With `NETCLOCK_CLOCK_CALLS_LOG=FILE`, appends the test's name, the run's arguments and its
    /// recorded calls to FILE: the record of what each case did, for people.
    static func keep(_ lines: [Substring], arguments: [String], shift: WallClockShift?) {
        guard let path = ProcessInfo.processInfo.environment["NETCLOCK_CLOCK_CALLS_LOG"] else { return }
        let name = Test.current.map { "\($0.name)" } ?? "?"
        let clock = shift.map { " (clock \($0.testDescription))" } ?? ""
        let text =
            "# \(name)\(clock): netclock \(arguments.joined(separator: " "))\n"
            + (lines.isEmpty ? "(no clock calls)\n" : lines.joined(separator: "\n") + "\n")
        guard let handle = FileHandle(forWritingAtPath: path) else {
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            return
        }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
    }

    /// Runs `netclock arguments` without `CAP_SYS_TIME`, its wall clock `shift` (nil: this machine's),
    /// with `scene`'s empty cache directory, under the recorder unless `recording` is false.
    static func run(
        _ arguments: [String], in scene: CertificateTimeScene, at shift: WallClockShift?,
        recording: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Run {
        #expect(canDropSysTime, "setpriv cannot drop CAP_SYS_TIME here", sourceLocation: sourceLocation)
        try #require(canDropSysTime)
        var environment = ["XDG_CACHE_HOME": scene.cache]
        if let shift { environment.merge(try shift.environment()) { $1 } }
        let calls = scene.directory + "/clock-calls-\(UUID().uuidString).jsonl"
        if recording {
            let library = try library.get()
            // The recorder first, so its symbols win; libfaketime after it still fakes the reads.
            environment["LD_PRELOAD"] = ([library] + (environment["LD_PRELOAD"].map { [$0] } ?? []))
                .joined(separator: " ")
            environment["NETCLOCK_CLOCK_CALLS"] = calls
        }
        let spawnedAt = Date().timeIntervalSince1970
        let output = try await CLIRunner.run(
            arguments, prefix: withoutSysTime, environment: environment, timeout: 30)
        let exitedAt = Date().timeIntervalSince1970
        let lines = (try? String(contentsOfFile: calls, encoding: .utf8))?.split(separator: "\n") ?? []
        let parsed = try lines.map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "bad line \(line)")
        }
        keep(lines, arguments: arguments, shift: shift)
        return Run(
            run: CertificateTimeScene.Run(output: output, spawnedAt: spawnedAt, exitedAt: exitedAt),
            calls: parsed)
    }
}
