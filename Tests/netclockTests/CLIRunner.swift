import Foundation
import LoopbackServers
import SNTP
import TimeValues

/// Runs the built `netclock` binary (or another product of this package) and captures its output.
struct CLIRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var elapsed: Duration

        /// Standard output parsed as one JSON object.
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
            guard let dictionary = object as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return dictionary
        }
    }

    /// The directory holding the package's built products: the test bundle sits beside them.
    static var productsDirectory: URL { TestExecutables.productsDirectory }

    static func url(of product: String) -> URL {
        productsDirectory.appendingPathComponent(product)
    }

    /// Runs `product` with `arguments`; `prefix` (e.g. `["faketime", "-f", "+3600s"]`) runs it
    /// through another program. Environment variables in `environment` are added.
    ///
    /// The wait happens on a Dispatch thread, never on one of Swift concurrency's cooperative
    /// threads (only two on this machine): blocking those would stall every other test running
    /// at the same time.
    static func run(
        _ arguments: [String], product: String = "netclock", prefix: [String] = [],
        environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> Output {
        try await BlockingCases.onThread {
            try runBlocking(
                arguments, product: product, prefix: prefix, environment: environment, timeout: timeout)
        }
    }

    private static func runBlocking(
        _ arguments: [String], product: String, prefix: [String], environment: [String: String],
        timeout: TimeInterval
    ) throws -> Output {
        let process = Process()
        let binary = url(of: product).path
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = prefix + [binary] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = try closeOnExecPipe()
        let err = try closeOnExecPipe()
        process.standardOutput = out.write
        process.standardError = err.write
        process.standardInput = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        // The child has its own copies now: its exit is the end of file.
        try out.write.close()
        try err.write.close()
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        BlockingCases.onThread(in: group) { outData = out.read.readDataToEndOfFile() }
        BlockingCases.onThread(in: group) { errData = err.read.readDataToEndOfFile() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            // SIGKILL: children inherit the test runner's blocked-signal mask, so SIGTERM may be
            // ignored, and a hung child must not hang the suite.
            kill(process.processIdentifier, SIGKILL)
            group.wait()
        }
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), elapsed: clock.now - start)
    }

    /// A pipe whose ends close on exec: only the child it is given to (as its standard output or
    /// error, copied there without the flag) holds the write end, so its exit is the end of file,
    /// whatever other children this process starts meanwhile. Foundation's `Pipe` lacks the flag.
    private static func closeOnExecPipe() throws -> (read: FileHandle, write: FileHandle) {
        var ends: [Int32] = [-1, -1]
        guard let pipe2 = Self.pipe2 else { throw POSIXError(.ENOSYS) }
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return (
            FileHandle(fileDescriptor: ends[0], closeOnDealloc: true),
            FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        )
    }

    /// The C library's `pipe2`, which Swift's Glibc module does not declare.
    private static let pipe2: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "pipe2") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    }()

    /// Whether `tool` is on the PATH.
    static func hasTool(_ tool: String) -> Bool {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    /// Whether CI asked for every real peer to be present (a missing tool then fails the test).
    static var peersRequired: Bool { TestExecutables.peersRequired }
}
