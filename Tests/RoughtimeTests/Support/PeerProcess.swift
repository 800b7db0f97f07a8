#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// A child process started with `posix_spawn` (signal mask and usual handlers reset, so SIGTERM
/// stops it: the test runner's threads block SIGTERM, which a child would inherit), its output in
/// a file, reaped by its own pid. It is stopped when released, so none outlives its test.
final class PeerProcess {
    /// The child's process id.
    let pid: pid_t
    /// Where standard output and error go.
    let outputPath: String
    private(set) var exitStatus: Int32?

    /// Starts `executable` with `arguments` and the environment `environment` added to this
    /// process's; output appended to `outputPath`.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], outputPath: String)
        throws
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw PeerFailure("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.outputPath = outputPath
    }

    deinit { stop() }

    /// What the child has printed so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Whether the child still runs (reaping it if it exited).
    var isRunning: Bool {
        reap(blocking: false)
        return exitStatus == nil
    }

    /// Waits for the child to exit, polling every 10 ms; false if it still runs after `timeout`.
    func waitForExit(within timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while isRunning {
            if clock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// SIGTERM, up to 3 s, then SIGKILL; returns once the child is reaped.
    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if !waitForExit(within: .seconds(3)) {
            kill(pid, SIGKILL)
            reap(blocking: true)
        }
    }

    private func reap(blocking: Bool) {
        guard exitStatus == nil else { return }
        var status: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
        } while result == -1 && errno == EINTR
        if result == pid {
            let signal = status & 0x7F
            exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        } else if result == -1 {
            exitStatus = -1
        }
    }
}

/// A failure while driving a peer program, with what it printed.
struct PeerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
