import Foundation
import LoopbackServers
import Testing

/// A real chronyd serving NTS (RFC 8915) on loopback, for one test: NTS-KE over TLS 1.3 on
/// ``ntsPort`` and authenticated NTPv4 on ``ntpPort``, at 127.0.0.1 and (when IPv6 loopback works)
/// ::1, with the test CA's server certificate for `localhost`, 127.0.0.1 and ::1
/// (``TestCertificates``). The process, ports and cleanup are ``ChronyServer``'s: a fresh mode-0700
/// directory, free ports with a retry when another program takes one first, SIGTERM then SIGKILL by
/// pid and the directory removed on every path.
///
/// The configuration it writes (TESTING.md, "NTS"):
/// ```
/// port P / ntsport K / bindaddress 127.0.0.1 / bindaddress ::1 / allow 127.0.0.0/8 / allow ::1
/// local stratum 8 / cmdport 0 / bindcmdaddress DIR/chronyd.sock / pidfile DIR/chronyd.pid
/// ntsserverkey KEY / ntsservercert CERT / ntsdumpdir DIR/nts-dump / ntsprocesses 0
/// [ntsntpserver HOST]
/// ```
/// Two deliberate differences from TESTING.md's recipe: chronyd runs as root (`-u root`, as the
/// plain-NTP harness does), so it reads the certificates' own key (0600 root) and its directory
/// without a `_chrony`-owned copy; and it keeps ``ChronyServer``'s private command socket instead of
/// `bindcmdaddress /`, so a test can read chronyd's NTS counters with ``serverStatistics(chronyc:)``.
/// Without IPv6 loopback chronyd runs with `-4`: it never listens on any other IPv6 address.
final class ChronyNTSServer {
    /// The chronyd process and its directory.
    let server: ChronyServer
    /// The shared test certificates: by default chronyd serves their server certificate; their
    /// self-signed one signed no server here (a trust root every client must refuse).
    let certificates: TestCertificates
    /// The CA certificate (PEM) that signed chronyd's certificate, which a client must trust.
    let caFile: String

    /// The NTS-KE (TCP, TLS) port.
    var ntsPort: UInt16 { server.ntsPort ?? 0 }
    /// The NTP (UDP) port, which the NTS-KE response names (record type 7: it is not 123).
    var ntpPort: UInt16 { server.port }
    /// The addresses chronyd listens on: 127.0.0.1, and ::1 when ``ipv6``.
    var hosts: [String] { server.hosts }
    /// Whether chronyd also listens on ::1.
    var ipv6: Bool { server.hosts.contains("::1") }
    /// chronyd's process id.
    var pid: Int32 { server.pid }
    /// chronyd's directory (removed by ``stop()``).
    var directory: String { server.directory }
    /// Whether chronyd is still running.
    var isRunning: Bool { server.isRunning }
    /// What chronyd logged so far.
    var log: String { server.log }

    /// Why NTS tests skip when chronyd, chronyc or openssl is missing.
    static let toolsMissing: Comment =
        "chronyd/chronyc or openssl not installed (apt-get install -y chrony openssl): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    /// Whether NTS tests should run: chronyd, chronyc (for ``serverStatistics(chronyc:)``) and openssl
    /// are installed, or CI requires them (the test then fails in ``start(ntpServer:ipv6:)`` or on
    /// `InteropTool.require`).
    static var runnable: Bool {
        InteropTool.runnable("chronyd", "chronyc") && TestCertificates.runnable
    }

    /// Starts chronyd as an NTS server and waits (at most 5 s) until NTP answers and NTS-KE accepts
    /// connections on every address; a port taken meanwhile gets a second and third try.
    ///
    /// - Parameters:
    ///   - ntpServer: `ntsntpserver HOST`: the NTS-KE response names this NTP host (record type 6);
    ///     nil: the client stays on the host it asked for keys.
    ///   - ipv6: whether chronyd also listens on ::1 (by default: when IPv6 loopback works here).
    static func start(ntpServer: String? = nil, ipv6: Bool = LoopbackEnvironment.ipv6LoopbackAvailable)
        throws -> ChronyNTSServer
    {
        let chronyd = try InteropTool.require("chronyd", package: "chrony")
        let certificates = try TestCertificates.require()
        let nts = ChronyServer.NTS(
            certificate: certificates.serverCertificate, key: certificates.serverKey, ntpServer: ntpServer)
        let server = try ChronyServer.start(chronyd: chronyd, stratum: 8, ipv6: ipv6, nts: nts)
        return ChronyNTSServer(server: server, certificates: certificates, caFile: certificates.caFile)
    }

    /// Starts chronyd as an NTS server presenting `certificate` (with `key`), signed by `caFile`, as
    /// ``start(ntpServer:ipv6:)`` does; `environment`'s variables are added to chronyd's, e.g.
    /// libfaketime's for a server whose clock, and so its NTS time, is shifted (chronyd serves it
    /// as it serves a correct one: TESTING.md, "A wrong clock against certificates").
    static func start(
        certificate: String, key: String, caFile: String, environment: [String: String] = [:],
        ipv6: Bool = LoopbackEnvironment.ipv6LoopbackAvailable
    ) throws -> ChronyNTSServer {
        let chronyd = try InteropTool.require("chronyd", package: "chrony")
        let certificates = try TestCertificates.require()
        let nts = ChronyServer.NTS(certificate: certificate, key: key, ntpServer: nil)
        let server = try ChronyServer.start(
            chronyd: chronyd, stratum: 8, ipv6: ipv6, nts: nts, environment: environment)
        return ChronyNTSServer(server: server, certificates: certificates, caFile: caFile)
    }

    /// Starts an NTS server, runs `body` with it and stops it, whatever `body` does.
    static func with<T>(
        ntpServer: String? = nil, ipv6: Bool = LoopbackEnvironment.ipv6LoopbackAvailable,
        _ body: (ChronyNTSServer) async throws -> T
    ) async throws -> T {
        let server = try start(ntpServer: ntpServer, ipv6: ipv6)
        defer { server.stop() }
        return try await body(server)
    }

    private init(server: ChronyServer, certificates: TestCertificates, caFile: String) {
        self.server = server
        self.certificates = certificates
        self.caFile = caFile
    }

    /// Stops chronyd by its pid (SIGTERM, SIGKILL after 3 s) and deletes its directory. Idempotent.
    func stop() { server.stop() }

    /// chronyd's `serverstats` counters (`NTS-KE connections accepted`, `Authenticated NTP packets`,
    /// `NTP packets received`, …) by name, read over the private command socket.
    func serverStatistics(chronyc: String) throws -> [String: Int] {
        let output = try InteropTool.run(
            chronyc, ["-h", server.socketPath, "serverstats"], timeout: .seconds(5))
        guard output.status == 0 else { throw InteropTool.Failure("chronyc serverstats: \(output.combined)") }
        return Self.parseServerStatistics(output.stdout)
    }

    /// How much counter `name` grew from `before` to `after` (two ``serverStatistics(chronyc:)``
    /// readings). Compare readings: the harness's own readiness probes are one plain NTP packet and one
    /// NTS-KE connection (closed without TLS) per address.
    static func increase(of name: String, from before: [String: Int], to after: [String: Int]) -> Int {
        (after[name] ?? 0) - (before[name] ?? 0)
    }

    /// `Name : number` lines as a dictionary (names trimmed).
    static func parseServerStatistics(_ text: String) -> [String: Int] {
        var counters: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1].trimmingCharacters(in: .whitespaces)) else {
                continue
            }
            counters[parts[0].trimmingCharacters(in: .whitespaces)] = value
        }
        return counters
    }
}
