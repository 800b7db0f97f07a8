#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import SNTP
import Testing

/// Finding and running the real NTP programs (chrony, ntpsec's ntpdig) the interoperability tests
/// talk to, and probing loopback UDP ports for them.
enum InteropTool {
    /// A failure while driving an external program; the message carries the program's own output.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// What a finished program printed.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
        /// Both streams: chronyd logs to stderr, ntpdig prints to stdout.
        var combined: String { stdout + stderr }
    }

    /// The absolute path of `name`: the `PATH` first, then the sbin directories, where Debian
    /// installs `chronyd` and which a non-login `PATH` may lack.
    static func path(of name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories =
            path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether a test needing `names` should run: they are all installed, or CI requires every real
    /// peer (`NETCLOCK_REQUIRE_PEERS=1`), in which case ``require(_:sourceLocation:)`` fails the test.
    static func runnable(_ names: String...) -> Bool {
        CLIRunner.peersRequired || names.allSatisfy { path(of: $0) != nil }
    }

    /// The path of `name`, or a recorded test failure (only reached when CI requires the tool).
    static func require(_ name: String, package: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
        -> String
    {
        try #require(
            path(of: name),
            "\(name) is not installed, and NETCLOCK_REQUIRE_PEERS=1 requires it (apt-get install -y \(package))",
            sourceLocation: sourceLocation)
    }

    /// Runs `executable` with `arguments`, its output in files (no pipe can fill up), and waits at most
    /// `timeout`; a program still running then is stopped by its pid (``SpawnedProcess/terminate()``),
    /// so none is left behind. `environment`'s variables are added to the program's (e.g. libfaketime's).
    static func run(
        _ executable: String, _ arguments: [String], timeout: Duration, environment: [String: String] = [:]
    ) throws -> Output {
        let directory = try makePrivateTemporaryDirectory(prefix: "netclock-tool")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outPath = directory + "/stdout"
        let errPath = directory + "/stderr"
        let process = try SpawnedProcess(
            executable, arguments, stdout: outPath, stderr: errPath, environment: environment)
        let timedOut = !process.waitForExit(within: timeout)
        process.terminate()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Output(status: process.exitStatus ?? -1, stdout: stdout, stderr: stderr, timedOut: timedOut)
    }

    /// A new directory under the temporary directory, mode 0700 (`mkdtemp`), as chronyd demands for
    /// the directory of its command socket.
    static func makePrivateTemporaryDirectory(prefix: String) throws -> String {
        var base = NSTemporaryDirectory()
        if base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else { throw Failure("mkdtemp failed: errno \(errno)") }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Binds a UDP socket (a TCP one with `tcp`) to `host`:`port` and closes it at once: 0 when that
    /// works, else the errno (`EACCES` for a port below 1024 without privileges, `EADDRINUSE`,
    /// `EADDRNOTAVAIL` when the host has no such address, e.g. no IPv6 loopback).
    static func bindProbe(host: String, port: UInt16, tcp: Bool = false) -> Int32 {
        withSocket(host: host, port: port, tcp: tcp) { descriptor, address, length in
            bind(descriptor, address, length) == 0 ? 0 : errno
        }
    }

    /// Whether a TCP connection to `host`:`port` is accepted (a listener is there); closed at once.
    static func tcpConnects(host: String, port: UInt16) -> Bool {
        withSocket(host: host, port: port, tcp: true) { descriptor, address, length in
            connect(descriptor, address, length) == 0 ? 0 : errno
        } == 0
    }

    /// Opens a socket of `host`'s family, runs `body` with it and `host`:`port` as a `sockaddr`, and
    /// closes it; `body`'s result, or the errno of a failed `socket` (`EINVAL` for a bad address).
    private static func withSocket(
        host: String, port: UInt16, tcp: Bool,
        _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        let isIPv6 = host.contains(":")
        #if canImport(Glibc)
            let type = Int32((tcp ? SOCK_STREAM : SOCK_DGRAM).rawValue)
        #else
            let type = tcp ? SOCK_STREAM : SOCK_DGRAM
        #endif
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, type, 0)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return EINVAL }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return EINVAL }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return result
    }

    /// Whether a test needing to bind `host`:`port` should run: it can, or CI requires it (the test
    /// then fails on the bind with the errno).
    static func canBindOrRequired(host: String, port: UInt16) -> Bool {
        CLIRunner.peersRequired || bindProbe(host: host, port: port) == 0
    }

    /// A UDP port free on every host in `hosts`, chosen at random in 20000–32767: below Linux's
    /// ephemeral range (32768–60999), so the port-0 sockets of tests running in parallel never take
    /// it between this probe and the bind of the program it is meant for.
    static func freeUDPPort(on hosts: [String]) throws -> UInt16 {
        try freePort(on: hosts, tcp: false)
    }

    /// The same for a TCP listening port (e.g. NTS-KE's), other than any port in `excluding`.
    static func freeTCPPort(on hosts: [String], excluding: Set<UInt16> = []) throws -> UInt16 {
        try freePort(on: hosts, tcp: true, excluding: excluding)
    }

    private static func freePort(on hosts: [String], tcp: Bool, excluding: Set<UInt16> = []) throws -> UInt16
    {
        for _ in 0..<64 {
            let port = UInt16.random(in: 20_000...32_767)
            guard !excluding.contains(port) else { continue }
            if hosts.allSatisfy({ bindProbe(host: $0, port: port, tcp: tcp) == 0 }) { return port }
        }
        throw Failure("no free \(tcp ? "TCP" : "UDP") port in 20000–32767 on \(hosts)")
    }
}

/// A child process started with `posix_spawn` and reaped with `wait4` on its own pid (which also
/// gives the CPU time it used).
///
/// Not Foundation's `Process`: a child inherits the signal mask of the thread that spawns it, and the
/// test runner's worker threads block SIGTERM, so a `Process` child (chronyd included) ignores
/// `terminate()` until SIGKILL. This resets the mask and the usual signals' handlers in the child,
/// so SIGTERM stops it cleanly.
final class SpawnedProcess {
    /// The child's process id.
    let pid: pid_t
    /// The exit status (or 128 + signal number), once reaped.
    private(set) var exitStatus: Int32?
    /// The CPU time (user plus system) the child used, once reaped.
    private(set) var cpuTime: Duration?

    /// Starts `executable` with `arguments`, standard input from /dev/null and standard output and
    /// error appended to the given files (the same file for both is fine). The child gets this
    /// process's environment, with `environment`'s variables added or replaced (e.g. libfaketime's).
    init(
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

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
            throw InteropTool.Failure("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    deinit { terminate() }

    /// Whether the child has not exited yet (reaping it if it has).
    var isRunning: Bool {
        reap(blocking: false)
        return exitStatus == nil
    }

    /// Waits until the child exits, polling every 10 ms; false if it still runs after `timeout`.
    func waitForExit(within timeout: Duration) -> Bool {
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
    func terminate() {
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
