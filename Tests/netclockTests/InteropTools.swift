#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LoopbackServers
import SNTP
import Testing
import TimeValues

/// Finding and running the real NTP programs (chrony, ntpsec's ntpdig) the interoperability tests
/// talk to, and probing loopback UDP ports for them.
enum InteropTool {
    /// Why a test of a peer over IPv6 loopback is skipped (``canBindOrRequired(host:port:)``).
    static let noIPv6Loopback: Comment =
        "no IPv6 loopback (::1) on this machine: skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

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
    static func path(of name: String) -> String? { TestExecutables.path(of: name) }

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
