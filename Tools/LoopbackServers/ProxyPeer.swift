#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NetClockPlatform
import NetClockTestSupport

/// A real forward proxy on loopback for tests — Debian's Squid or tinyproxy — started in the
/// foreground on an unprivileged port with a configuration and every file it writes in its own
/// temporary directory, and stopped by its pid (``stop()``, or releasing it).
///
/// Both run as root and drop to their own user (`proxy`, `tinyproxy`), so the directory is mode
/// 0777 (TESTING.md, "Proxies on loopback"). Squid runs under a service name of its own, caches in
/// memory only and starts no helper process (``squidConfiguration(_:)``).
package final class ProxyPeer {
    /// Which proxy.
    package enum Kind: String, Sendable, CustomStringConvertible {
        case squid
        case tinyproxy

        package var description: String { rawValue }

        /// The executable's name.
        var executable: String { self == .squid ? "squid" : "tinyproxy" }

        /// Where the executable is: the `PATH`, then the sbin directories a non-login `PATH` may lack.
        package var path: String? { TestExecutables.path(of: executable) }

        /// Whether a test needing it runs: it is installed, or CI requires every peer (then its
        /// absence fails the test in ``ProxyPeer/init(_:options:)``).
        package var runnable: Bool { path != nil || TestCertificates.toolsRequired }

        /// The skip reason.
        package var missing: String {
            "\(executable) is not installed (apt-get install -y squid tinyproxy); NETCLOCK_REQUIRE_PEERS=1 makes this fail"
        }
    }

    /// How the proxy is set up.
    package struct Options: Sendable {
        /// Squid only: names only the proxy resolves (`time.internal` → `127.0.0.1`).
        package var hosts: [String: String] = [:]
        /// Squid only: serve cached answers even to `Cache-Control: no-cache` requests, for 60 s.
        package var cacheIgnoringNoCache = false
        /// tinyproxy only: the user and password it requires (`BasicAuth`).
        package var basicAuth: (user: String, password: String)?

        package init() {}
    }

    /// Why a proxy could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let kind: Kind
    /// The loopback port it listens on.
    package let port: UInt16
    /// The temporary directory of its configuration, logs and pid file.
    package let directory: String
    /// Squid's service name (`-n`), which names its shared memory segments: its own, so that
    /// Squids running at once never share one. (Under the default `squid`, one that finds a segment
    /// unlinks and re-creates it; two starting beside a running third can both find it, and the one
    /// that re-creates it second dies: "FATAL: Ipc::Mem::Segment::create failed to shm_open(…): File
    /// exists".)
    let serviceName = "netclock" + UUID().uuidString.prefix(8)
    private var process: SpawnedProcess?

    /// The longest start-up allowed.
    package static let startLimit = Duration.seconds(15)

    /// Writes the configuration, starts the proxy and waits until it accepts connections.
    package init(_ kind: Kind, options: Options = Options()) throws {
        guard let executable = kind.path else { throw Failure(description: kind.missing) }
        self.kind = kind
        directory =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("netclock-\(kind)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        port = try Self.freePort()
        let configuration = directory + "/\(kind).conf"
        let text = kind == .squid ? squidConfiguration(options) : tinyproxyConfiguration(options)
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: configuration)
        let output = directory + "/stdout.log"
        let arguments =
            kind == .squid ? ["-n", serviceName, "-f", configuration, "-N"] : ["-d", "-c", configuration]
        let process = try SpawnedProcess(executable, arguments, stdout: output, stderr: output)
        self.process = process
        let started = ContinuousClock.now
        guard waitUntilListening(process) else {
            // Read before stop(), which removes the directory the log is in.
            let waited = ContinuousClock.now - started
            let message =
                "\(kind) did not listen on 127.0.0.1:\(port) (\(Self.state(of: process)) after \(waited)): \(log)"
            stop()
            throw Failure(description: message)
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`, or with credentials `http://user:password@127.0.0.1:PORT`.
    package func url(user: String? = nil, password: String? = nil) -> String {
        let credentials = user.map { "\($0):\(password ?? "")@" } ?? ""
        return "http://\(credentials)127.0.0.1:\(port)"
    }

    /// What the proxy logged (its access log and its own output), for messages and assertions.
    package var log: String {
        ["access.log", "cache.log", "tinyproxy.log", "stdout.log"].compactMap {
            try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
        }.joined(separator: "\n")
    }

    /// Squid's access log alone (one line per request, `TCP_MISS/200 … HEAD http://…`).
    package var accessLog: String {
        (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
    }

    /// Stops the proxy by its pid and removes its directory: tinyproxy by SIGTERM (then SIGKILL
    /// after 3 s); Squid by SIGKILL, then its shared memory segments (`/dev/shm/SERVICE-…`).
    ///
    /// Squid takes a second to stop on SIGTERM however it is configured (it ends its main loop by
    /// an event `shutdown_lifetime` + 1 s ahead), and a test has read all it needs of it by now.
    /// SIGKILL leaves nothing behind but those segments: it starts no helper process, and its only
    /// state on disk is in the directory.
    package func stop() {
        if kind == .squid, let process, process.isRunning {
            kill(process.pid, SIGKILL)
            _ = process.waitForExit(within: .seconds(3))
        }
        process?.terminate()
        process = nil
        if kind == .squid, let segments = try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm") {
            for segment in segments where segment.hasPrefix(serviceName + "-") {
                try? FileManager.default.removeItem(atPath: "/dev/shm/" + segment)
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Squid's configuration: a memory cache only (no `cache_dir`, so no `squid -z` and no unlinkd
    /// helper) and no pinger, so that it runs as one process, which SIGKILL stops whole.
    private func squidConfiguration(_ options: Options) -> String {
        var lines = [
            "http_port 127.0.0.1:\(port)",
            "acl localnet src 127.0.0.0/8",
            "http_access allow localnet",
            "http_access deny all",
            "pid_filename \(directory)/squid.pid",
            "access_log stdio:\(directory)/access.log",
            "cache_log \(directory)/cache.log",
            "dns_nameservers 127.0.0.1",
            "pinger_enable off",
        ]
        if !options.hosts.isEmpty {
            let hosts = options.hosts.map { "\($0.value) \($0.key)" }.sorted().joined(separator: "\n")
            try? (hosts + "\n").write(toFile: directory + "/hosts", atomically: true, encoding: .utf8)
            lines.append("hosts_file \(directory)/hosts")
        }
        if options.cacheIgnoringNoCache {
            lines.append("refresh_pattern . 60 100% 60 ignore-reload override-expire ignore-no-store")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func tinyproxyConfiguration(_ options: Options) -> String {
        // No ConnectPort line: CONNECT to any port (tinyproxy 1.11's `ConnectPort 0` disables it).
        var lines = [
            "Port \(port)", "Listen 127.0.0.1", "Allow 127.0.0.1", "Timeout 30",
            "LogFile \"\(directory)/tinyproxy.log\"", "LogLevel Connect",
            "PidFile \"\(directory)/tinyproxy.pid\"",
            "MaxClients 20",
        ]
        if let auth = options.basicAuth { lines.append("BasicAuth \(auth.user) \(auth.password)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How a child stands, for a failure's message: its exit status, or that it still runs.
    private static func state(of process: SpawnedProcess) -> String {
        switch process.exitStatus {
        case nil: "still running"
        case -1: "reaped elsewhere (ECHILD)"
        case let status?: "exited with status \(status)"
        }
    }

    /// Polls a TCP connection to the port every 10 ms until one is accepted, the process exits or
    /// ``startLimit`` passes.
    private func waitUntilListening(_ process: SpawnedProcess) -> Bool {
        let end = ContinuousClock.now + Self.startLimit
        let address = SocketAddress.loopback(.ipv4, port: port)
        while ContinuousClock.now < end && process.isRunning {
            if let connection = try? TCPConnection(startingConnectionTo: address) {
                defer { connection.close() }
                if (try? connection.waitUntilConnected(timeout: .milliseconds(200))) == true { return true }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// A TCP port free on 127.0.0.1, at random in 20000–32767 (below Linux's ephemeral range, so
    /// no port-0 socket of a test takes it before the proxy binds it).
    private static func freePort() throws -> UInt16 {
        for _ in 0..<64 {
            let port = UInt16.random(in: 20_000...32_767)
            if let listener = try? TCPListener(binding: .loopback(.ipv4, port: port)) {
                listener.close()
                return port
            }
        }
        throw Failure(description: "no free TCP port in 20000–32767")
    }
}
