#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// A child process started with `posix_spawn` and reaped with `wait4` on its own pid (which also
/// gives the CPU time it used).
///
/// Not Foundation's `Process`: a child inherits the signal mask of the thread that spawns it, and the
/// test runner's worker threads block SIGTERM, so a `Process` child (chronyd included) ignores
/// `terminate()` until SIGKILL. This resets the mask and the usual signals' handlers in the child,
/// so SIGTERM stops it cleanly.
package final class SpawnedProcess {
    /// Why a child could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// The child's process id.
    package let pid: pid_t
    /// The exit status (or 128 + signal number), once reaped.
    package private(set) var exitStatus: Int32?
    /// The CPU time (user plus system) the child used, once reaped.
    package private(set) var cpuTime: Duration?

    /// Starts `executable` with `arguments`, standard input from /dev/null and standard output and
    /// error appended to the given files (the same file for both is fine). The child gets this
    /// process's environment, with `environment`'s variables added or replaced (e.g. libfaketime's).
    /// It keeps none of this process's other descriptors.
    package init(
        _ executable: String, _ arguments: [String], stdout: String, stderr: String,
        environment: [String: String] = [:]
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let append = O_WRONLY | O_CREAT | O_APPEND
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, append, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, append, 0o600)
        // Nothing else of this process: a test's other descriptors (the pipes of a CLI run beside
        // it, whose reader waits for their end of file) must not live on in a daemon.
        #if canImport(Glibc)
            guard let closeFrom = Self.closeFrom else {
                throw Failure(
                    "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later needed)")
            }
            _ = closeFrom(&actions, 3)
            let closing: Int32 = 0
        #else
            let closing = Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | closing))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result: Int32
        if environment.isEmpty {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        } else {
            var variables = ProcessInfo.processInfo.environment
            variables.merge(environment) { $1 }
            let envp: [UnsafeMutablePointer<CChar>?] =
                variables.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in envp { free(pointer) } }
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard result == 0 else {
            throw Failure("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    deinit { terminate() }

    /// Whether the child has not exited yet (reaping it if it has).
    package var isRunning: Bool {
        reap(blocking: false)
        return exitStatus == nil
    }

    /// Waits until the child exits, polling every 10 ms; false if it still runs after `timeout`.
    package func waitForExit(within timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while isRunning {
            if clock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// Stops the child by its pid: SIGTERM, up to 3 s to exit, then SIGKILL; returns once it is
    /// reaped. Does nothing once it has exited.
    package func terminate() {
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
        var usage = rusage()
        var result: pid_t
        repeat {
            result = wait4(pid, &status, blocking ? 0 : WNOHANG, &usage)
        } while result == -1 && errno == EINTR
        if result == pid {
            cpuTime =
                .seconds(Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec))
                + .microseconds(Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec))
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
            let signal = status & 0x7F
            exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        } else if result == -1 {
            exitStatus = -1  // ECHILD: reaped elsewhere; either way it is gone
        }
    }
}

#if canImport(Glibc)
    extension SpawnedProcess {
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
        /// module does not declare: looked up once.
        fileprivate static let closeFrom:
            (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
                guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
                return unsafeBitCast(
                    symbol,
                    to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)
                        .self)
            }()
    }
#endif
