import Foundation
import LoopbackServers
import Testing

/// One test's world for issue 21 (certificates checked against trusted time): the time-shifted
/// certificates (``TimeShiftedCertificates``), a private directory for the state files and the
/// CLI's cache, the servers, and `netclock` run under a wrong wall clock (``WallClockShift``).
///
/// The servers:
/// - an **honest chronyd** NTS server with the honest leaf (valid from now for 3 days); its clock is
///   this machine's;
/// - the **expired-key attacker**: a chronyd under libfaketime `FAKETIME=-400d` with the leaked leaf
///   (same CA, expired about 370 days ago). Its clock, and so its authenticated NTS time, is last
///   year's: to a client whose wall clock is also 400 days behind, it agrees with the wall clock and
///   its certificate looks valid;
/// - an honest in-process ``FakeNTSServer`` with the honest leaf, a second honest NTS
///   implementation for the majority case;
/// - the loopback HTTPS time server with the honest leaf.
///
/// Every run points `XDG_CACHE_HOME` at this scene's directory: under `--certificate-time auto`
/// the CLI checks certificates against the trusted clock when the default state file holds a valid
/// anchor, so a default anchor left in `$HOME/.cache` by another run would turn a cold start into
/// an anchored one.
final class CertificateTimeScene: Sendable {
    /// The certificates every server here presents and every client trusts (``caFile``).
    let certificates: TimeShiftedCertificates
    /// A fresh mode-0700 directory, removed by ``remove()``.
    let directory: String

    /// Whether these tests should run: chronyd, chronyc, openssl and libfaketime are installed, or CI
    /// requires every peer (`NETCLOCK_REQUIRE_PEERS=1`; a missing one then fails the test).
    static var runnable: Bool { ChronyNTSServer.runnable && TimeShiftedCertificates.runnable }
    /// Why they skip.
    static let toolsMissing: Comment =
        "chronyd/chronyc, openssl or libfaketime not installed (apt-get install -y chrony openssl faketime): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    /// The CA file a client trusts (`--ca-file`).
    var caFile: String { certificates.caFile }
    /// The anchor file for `--state`; its directory does not exist until the first `sync`.
    var state: String { directory + "/state/anchor.json" }
    /// The floor file `sync` keeps beside the anchor.
    var floor: String { state + ".floor" }
    /// The NTS cookie file `sync --nts` keeps beside the anchor.
    var cookies: String { state + ".nts" }
    /// The CLI's `XDG_CACHE_HOME`: empty, so there is no default anchor.
    var cache: String { directory + "/cache" }

    init() throws {
        certificates = try TimeShiftedCertificates.require()
        directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-certtime")
        try FileManager.default.createDirectory(
            atPath: directory + "/cache", withIntermediateDirectories: false)
    }

    deinit { remove() }

    /// Deletes the directory. Idempotent.
    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    // MARK: Servers

    /// chronyd serving NTS with the honest leaf and this machine's clock, on 127.0.0.1 only (one
    /// address a server, so the majority counts servers and addresses alike).
    func honestChrony() throws -> ChronyNTSServer {
        try ChronyNTSServer.start(
            certificate: certificates.certificate(.honest), key: certificates.key(.honest), caFile: caFile,
            ipv6: false)
    }

    /// chronyd under libfaketime `FAKETIME=-400d` (monotonic clocks left alone) serving NTS with the
    /// leaked leaf: last year's time, authenticated by a key of the trusted CA that expired since.
    func attackerChrony() throws -> ChronyNTSServer {
        try ChronyNTSServer.start(
            certificate: certificates.certificate(.leaked), key: certificates.key(.leaked), caFile: caFile,
            environment: try WallClockShift.behind400Days.environment(), ipv6: false)
    }

    /// The in-process fake NTS server with the honest leaf and this machine's clock, on 127.0.0.1.
    func honestFakeNTS() throws -> FakeNTSServer {
        try FakeNTSServer(
            configuration: .init(
                certificateChainFile: certificates.certificate(.honest),
                privateKeyFile: certificates.key(.honest)))
    }

    /// The loopback HTTPS time server with the honest leaf and this machine's clock, on 127.0.0.1.
    /// Besides `Date` it sends ``timestampHeader``, a millisecond timestamp: a run given
    /// `--http-header` with it needs one request instead of the seconds `Date` refinement takes.
    func honestHTTPS() throws -> HTTPTimeServer {
        try HTTPTimeServer(
            configuration: .init(timestampHeaderName: Self.timestampHeader),
            tls: HTTPSTimeServerTLS(certificates, leaf: .honest))
    }

    /// The millisecond timestamp header of ``honestHTTPS()``.
    static let timestampHeader = "X-Server-Time-Ms"

    // MARK: Running the CLI

    /// A finished `netclock` run and the real wall-clock instants around it.
    struct Run {
        var output: CLIRunner.Output
        /// This machine's real clock just before the spawn (seconds since 1970).
        var spawnedAt: Double
        /// The same just after the exit.
        var exitedAt: Double

        var status: Int32 { output.status }
        var stdout: String { output.stdout }
        var stderr: String { output.stderr }
        /// Both streams, for failure messages.
        var printed: String { "status \(output.status)\nstdout: \(output.stdout)\nstderr: \(output.stderr)" }
        /// Standard output as one JSON object.
        func json() throws -> [String: Any] { try output.json() }
    }

    /// Runs `netclock arguments` with its wall clock `shift` (nil: this machine's clock), with this
    /// scene's empty cache directory.
    func netclock(_ arguments: [String], at shift: WallClockShift?) async throws -> Run {
        var environment = ["XDG_CACHE_HOME": cache]
        if let shift { environment.merge(try shift.environment()) { $1 } }
        // Wall-clock readings on purpose: under a clock that starts at an instant (the dead RTC)
        // the expected offset depends on when the child started, in real time (WallClockShift).
        let spawnedAt = Date().timeIntervalSince1970
        let output = try await CLIRunner.run(arguments, environment: environment, timeout: 30)
        let exitedAt = Date().timeIntervalSince1970
        return Run(output: output, spawnedAt: spawnedAt, exitedAt: exitedAt)
    }

    /// `COMMAND --nts` against `servers` (`host:port` of their NTS-KE), trusting the shifted CA, one
    /// sample each without pause, a 1 s reply timeout, JSON (unless `json` is false), then `extra`.
    func ntsArguments(_ command: String, _ servers: [String], json: Bool = true, extra: [String] = [])
        -> [String]
    {
        [command, "--nts", "--ca-file", caFile, "--samples", "1", "--interval", "0", "--timeout", "1"]
            + (json ? ["--json"] : []) + extra + servers
    }

    /// `query --http-only --http URL`, trusting the shifted CA, JSON unless `json` is false, then
    /// `extra`.
    func httpsArguments(_ url: String, json: Bool = true, extra: [String] = []) -> [String] {
        ["query", "--http-only", "--http", url, "--ca-file", caFile, "--timeout", "1"]
            + (json ? ["--json"] : []) + extra
    }

    /// The file's bytes, or nil when it does not exist.
    func contents(of path: String) -> Data? { FileManager.default.contents(atPath: path) }
}

/// `127.0.0.1:PORT` of a server's NTS-KE listener.
func ntsKE(_ server: ChronyNTSServer) -> String { "127.0.0.1:\(server.ntsPort)" }
/// The same for the fake NTS server.
func ntsKE(_ server: FakeNTSServer) -> String { "127.0.0.1:\(server.kePort)" }
