#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NetClockPlatform
import SNTP
import TimeValues

/// A real chronyd serving its local clock over NTP on loopback, for one test; with ``NTS`` also an
/// NTS-KE server (``ChronyNTSServer`` wraps that case).
///
/// Everything chronyd writes lives in a fresh mode-0700 temporary directory (config, pid file, command
/// socket, log, NTS key dump); chronyd runs in the foreground (`-d`) as root (`-u root`: it reads the
/// files here without a copy for its `_chrony` user), never touches the system clock (`-x`), and
/// listens on unprivileged ports. ``stop()`` ends it by its pid (SIGTERM, then SIGKILL) and deletes
/// the directory; `deinit` and ``with(chronyd:stratum:ipv6:_:)`` make sure that happens on every path.
package final class ChronyServer {
    /// Why chronyd could not be started or did not serve; with what it logged.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// The `local stratum` chronyd serves.
    package let stratum: UInt8
    /// The NTP port on 127.0.0.1 (and ::1 when started with `ipv6`).
    package let port: UInt16
    /// The NTS-KE (TCP) port on the same addresses, when started with ``NTS``.
    package let ntsPort: UInt16?
    /// The addresses chronyd listens on: 127.0.0.1, and ::1 when started with `ipv6`.
    package let hosts: [String]
    /// The directory holding `chrony.conf`, `chronyd.pid`, `chronyd.sock` and `chronyd.log`.
    package let directory: String
    private let process: SpawnedProcess
    private var stopped = false

    /// chronyd's process id.
    package var pid: Int32 { process.pid }
    /// Whether chronyd is still running.
    package var isRunning: Bool { process.isRunning }
    /// The command socket, for `chronyc -h`.
    package var socketPath: String { directory + "/chronyd.sock" }
    /// The pid chronyd wrote to its pid file.
    package var pidFromFile: Int32? {
        (try? String(contentsOfFile: directory + "/chronyd.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
    /// What chronyd logged so far.
    package var log: String {
        (try? String(contentsOfFile: directory + "/chronyd.log", encoding: .utf8)) ?? ""
    }

    /// Starts a chronyd server, runs `body` with it and stops it, whatever `body` does.
    package static func with<T>(
        chronyd: String, stratum: UInt8 = 8, ipv6: Bool = false, _ body: (ChronyServer) throws -> T
    ) throws -> T {
        let server = try start(chronyd: chronyd, stratum: stratum, ipv6: ipv6)
        defer { server.stop() }
        return try body(server)
    }

    /// The same for a body that awaits (e.g. runs the CLI).
    package static func with<T>(
        chronyd: String, stratum: UInt8 = 8, ipv6: Bool = false, _ body: (ChronyServer) async throws -> T
    ) async throws -> T {
        let server = try start(chronyd: chronyd, stratum: stratum, ipv6: ipv6)
        defer { server.stop() }
        return try await body(server)
    }

    /// What makes chronyd an NTS server too (RFC 8915): its certificate and key, and optionally the
    /// NTP host its NTS-KE responses name.
    package struct NTS {
        /// The server certificate (PEM) chronyd presents on NTS-KE (`ntsservercert`).
        package var certificate: String
        /// Its private key (`ntsserverkey`).
        package var key: String
        /// `ntsntpserver HOST`: the NTS-KE response then names this NTP server (record type 6)
        /// instead of leaving the client on the NTS-KE host.
        package var ntpServer: String?

        /// chronyd's NTS server configuration.
        package init(certificate: String, key: String, ntpServer: String? = nil) {
            self.certificate = certificate
            self.key = key
            self.ntpServer = ntpServer
        }
    }

    /// Starts chronyd and waits (at most 5 s) until it answers an SNTP query on every address it
    /// serves and, with `nts`, accepts TCP connections on its NTS-KE port there. A port taken between
    /// the probe and chronyd's bind gets a second and third try. `environment`'s variables are added to
    /// chronyd's: libfaketime's (``LibFaketime/environment(_:library:)``) give it a shifted clock, and so
    /// shifted NTP time (the readiness probe accepts any offset).
    package static func start(
        chronyd: String, stratum: UInt8 = 8, ipv6: Bool = false, nts: NTS? = nil,
        environment: [String: String] = [:]
    ) throws -> ChronyServer {
        var lastError: any Error = Failure("chronyd never started")
        for _ in 0..<3 {
            let server = try ChronyServer(
                chronyd: chronyd, stratum: stratum, ipv6: ipv6, nts: nts, environment: environment)
            do {
                try server.waitUntilServing()
                return server
            } catch {
                lastError = error
                server.stop()
            }
        }
        throw lastError
    }

    private init(
        chronyd: String, stratum: UInt8, ipv6: Bool, nts: NTS?, environment: [String: String]
    ) throws {
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-chronyd")
        let hosts = ipv6 ? ["127.0.0.1", "::1"] : ["127.0.0.1"]
        do {
            let port = try LoopbackPorts.freeUDPPort(on: hosts)
            var lines = [
                "port \(port)",
                "bindaddress 127.0.0.1",
                "allow 127.0.0.0/8",
            ]
            if ipv6 { lines += ["bindaddress ::1", "allow ::1"] }
            lines += [
                "local stratum \(stratum)",
                "cmdport 0",
                "bindcmdaddress \(directory)/chronyd.sock",
                "pidfile \(directory)/chronyd.pid",
            ]
            var ntsPort: UInt16?
            if let nts {
                let keyPort = try LoopbackPorts.freeTCPPort(on: hosts, excluding: [port])
                let dump = directory + "/nts-dump"
                try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: false)
                lines += [
                    "ntsport \(keyPort)",
                    "ntsserverkey \(nts.key)",
                    "ntsservercert \(nts.certificate)",
                    "ntsdumpdir \(dump)",
                    "ntsprocesses 0",
                ]
                if let host = nts.ntpServer { lines.append("ntsntpserver \(host)") }
                ntsPort = keyPort
            }
            let config = directory + "/chrony.conf"
            try (lines.joined(separator: "\n") + "\n").write(
                toFile: config, atomically: true, encoding: .utf8)
            let logPath = directory + "/chronyd.log"
            // -t 60: a safety net; should this test process die without stopping it, chronyd exits on
            // its own within a minute instead of lingering.
            // -4 without `ipv6`: chronyd would otherwise listen for NTP and NTS-KE on every IPv6
            // address (there is no `bindaddress` for that family); only loopback is ever opened here.
            let family = ipv6 ? [] : ["-4"]
            self.process = try SpawnedProcess(
                chronyd, family + ["-u", "root", "-x", "-d", "-t", "60", "-f", config], stdout: logPath,
                stderr: logPath, environment: environment)
            self.port = port
            self.ntsPort = ntsPort
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        self.directory = directory
        self.stratum = stratum
        self.hosts = hosts
    }

    deinit { stop() }

    /// Polls with one-packet SNTP queries until each host gets an accepted reply, then (NTS) with TCP
    /// connections to the NTS-KE port until each host accepts one.
    private func waitUntilServing() throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        let client = SNTPClient()
        let options = QueryOptions(samples: 1, interval: .zero, timeout: .milliseconds(200))
        for host in hosts {
            guard let address = SocketAddress(numericHost: host, port: port) else {
                throw Failure("bad address \(host)")
            }
            while true {
                guard isRunning else {
                    throw Failure("chronyd exited (status \(process.exitStatus ?? -1)):\n\(log)")
                }
                let result = client.query(address, options: options)
                if result.best != nil { break }
                guard clock.now < deadline else {
                    let reason = result.failure.map { "\($0)" } ?? "no sample"
                    throw Failure(
                        "chronyd did not answer on \(address) within 5 s (\(reason)):\n\(log)")
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        if let ntsPort {
            for host in hosts {
                while !LoopbackPorts.tcpConnects(host: host, port: ntsPort) {
                    guard isRunning else {
                        throw Failure(
                            "chronyd exited (status \(process.exitStatus ?? -1)):\n\(log)")
                    }
                    guard clock.now < deadline else {
                        throw Failure(
                            "chronyd's NTS-KE did not listen on \(host) port \(ntsPort) within 5 s:\n\(log)")
                    }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
        }
        // chronyd keeps running when it cannot bind its NTP socket; whatever answered was not it then.
        if log.contains("Could not") {
            throw Failure("chronyd could not open a socket:\n\(log)")
        }
    }

    /// Stops chronyd by its pid (SIGTERM, SIGKILL after 3 s) and deletes its directory. Idempotent.
    package func stop() {
        guard !stopped else { return }
        stopped = true
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
