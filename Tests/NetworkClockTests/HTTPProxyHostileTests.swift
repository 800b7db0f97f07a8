import Foundation
@testable import HTTPTime
import LoopbackServers
import NetClockPlatform
import NetClockTestSupport
import Testing
import TimeValues
import WallClockReference

/// `https://` and `http://` time through a hostile proxy (``HostileProxy``): each fault ends in its
/// typed ``HTTPTimeError`` within the request timeout, without a measurement (so the clock never
/// moves), and the client thread uses almost no CPU meanwhile nor after the call returned.
///
/// Each fault's client runs on a pool of its own with one thread, whose CPU clock
/// (``ThreadCPUClock``) is that case's CPU whatever runs beside it (as in ``HostileTLSPeerTests``):
/// so the faults, which mostly wait on their proxies, all run at once (``faultRun``).
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct HTTPProxyHostileTests {
    typealias Budget = HostileTLSPeerBudget

    /// The code and words of the reason each fault gives through a `CONNECT` tunnel.
    static func expected(_ script: HostileProxy.Script) -> (HTTPTimeError.Code, String) {
        switch script {
        case .stall: return (.timeout, "no complete answer to CONNECT from the proxy")
        case .garbage: return (.proxyMalformedResponse, "the answer to CONNECT is malformed")
        case .closeEarly: return (.proxyClosed, "closed the connection after 11 bytes")
        case .authenticationRequired:
            return (
                .proxyAuthenticationRequired,
                "asks for credentials, and the proxy URL has none (HTTP 407, Proxy-Authenticate: Basic)"
            )
        case .forbidden: return (.proxyRefused, "refused a tunnel to time.invalid:443: HTTP 403")
        // The "origin" behind the tunnel speaks plain text: the TLS handshake refuses it.
        case .tunnelToPlainText: return (.tls, "wrong version number")
        case .bytesAfterEstablished:
            return (.proxyMalformedResponse, "sent 17 bytes after its answer to CONNECT, before TLS began")
        case .slowTunnel: return (.cancelled, "not a fault")
        }
    }

    /// What one fault's case showed.
    struct Ending: Sendable {
        var error: HTTPTimeError?
        /// From the call to its return.
        var wall: Duration
        /// The client thread's CPU from before the call to after the settle period.
        var cpu: Duration
        /// The pool's threads once every case returned and the settle period passed.
        var statistics: BlockingPool.Statistics
        var requestHeads: [String]
    }

    /// Why a case could not be played.
    struct CaseError: Error, CustomStringConvertible {
        var description: String
    }

    /// Every fault, played once, all at once; each argument reads its own.
    static let faultRun = Task { await Self.play(HostileProxy.Script.faults) }

    /// Plays every script against a proxy of its own at once, each client on a one-thread pool whose
    /// CPU clock is read before the call and once every case has returned and ``Budget/settle``
    /// passed (a thread left spinning keeps burning CPU meanwhile).
    static func play(_ scripts: [HostileProxy.Script]) async -> [HostileProxy.Script: Result<
        Ending, CaseError
    >] {
        struct Started: Sendable {
            var proxy: HostileProxy
            var meter: MeteredPool
            var error: HTTPTimeError?
            var wall: Duration
        }
        var started: [HostileProxy.Script: Started] = [:]
        var endings: [HostileProxy.Script: Result<Ending, CaseError>] = [:]
        await withTaskGroup(of: (HostileProxy.Script, Result<Started, CaseError>).self) { group in
            for script in scripts {
                group.addTask {
                    do {
                        let proxy = try HostileProxy(script)
                        // One thread that stays: its CPU clock is the client's.
                        guard let meter = await MeteredPool.make() else {
                            proxy.stop()
                            return (script, .failure(CaseError(description: "no thread CPU clock here")))
                        }
                        let source = try Self.source(proxy: proxy, pool: meter.pool)
                        guard let url = URL(string: "https://time.invalid/") else {
                            proxy.stop()
                            return (script, .failure(CaseError(description: "no URL")))
                        }
                        let start = ContinuousClock.now
                        var error: HTTPTimeError?
                        do throws(HTTPTimeError) {
                            _ = try await source.measure(url)
                        } catch let failure {
                            error = failure
                        }
                        let run = Started(
                            proxy: proxy, meter: meter, error: error,
                            wall: ContinuousClock.now - start)
                        return (script, .success(run))
                    } catch {
                        return (script, .failure(CaseError(description: "\(error)")))
                    }
                }
            }
            for await (script, result) in group {
                switch result {
                case .success(let run): started[script] = run
                case .failure(let error): endings[script] = .failure(error)
                }
            }
        }
        try? await Task.sleep(for: Budget.settle)
        for (script, run) in started {
            let ending = Ending(
                error: run.error, wall: run.wall,
                cpu: run.meter.cpuUsed ?? .seconds(3600),
                statistics: run.meter.pool.statistics, requestHeads: run.proxy.requestHeads)
            run.proxy.stop()
            endings[script] = .success(ending)
        }
        return endings
    }

    static func source(proxy: HostileProxy, pool: BlockingPool) throws -> HTTPTimeClient {
        var configuration = HTTPTimeClient.Configuration(
            requestTimeout: Budget.timeout, deadline: .seconds(2))
        configuration.proxy = .fixed(try HTTPProxy.parse(proxy.url).get(), environment: [:])
        return HTTPTimeClient(
            configuration: configuration, trustRoots: .caFile(try TestCertificates.require().caFile),
            pool: pool)
    }

    /// `https://time.invalid/`: a name nobody resolves, so only the proxy could have been asked.
    /// Each fault ends in its typed error: at once, or when the 0.5 s timeout is due for the stall
    /// (not later), and the client thread used less than ``HostileTLSPeerBudget/cpuLimit`` over the
    /// case and the settle period after every case returned.
    @Test(arguments: HostileProxy.Script.faults)
    func aHostileProxyGivesItsTypedErrorInTimeWithoutSpinning(_ script: HostileProxy.Script) async throws {
        let run = try (await Self.faultRun.value)[script].map { try $0.get() }
        let ending = try #require(run, "the case did not run")
        let (error, wall, cpu) = (ending.error, ending.wall, ending.cpu)
        let (code, reason) = Self.expected(script)
        #expect(error?.code == code, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        if code == .timeout {
            #expect(wall >= Budget.timeout && wall < Budget.timeout + Budget.slack, "took \(wall)")
        } else {
            #expect(wall < Budget.timeout, "took \(wall)")
        }
        #expect(
            cpu < Budget.cpuLimit,
            "the client thread used \(cpu) of CPU in \(wall) (+ \(Budget.settle) settling)")
        let statistics = ending.statistics
        #expect(statistics.idle == statistics.threads && statistics.queued == 0, "\(statistics)")
        #expect(ending.requestHeads.first?.hasPrefix("CONNECT time.invalid:443 HTTP/1.1\r\n") == true)
        if script == .authenticationRequired || script == .forbidden {
            #expect(error?.statusCode == (script == .forbidden ? 403 : 407))
        }
        print(
            "hostile proxy | https | \(script) | \(error?.code.rawValue ?? "-") | wall \(wall) | cpu \(cpu)")
    }

    /// `http://` through the same proxy: the request in absolute form; a 407 is the proxy's.
    @Test func plainHTTPThroughAProxyAskingForCredentials() async throws {
        let proxy = try HostileProxy(.authenticationRequired)
        defer { proxy.stop() }
        let source = try Self.source(proxy: proxy, pool: BlockingPool(maximumThreads: 2))
        let url = try #require(URL(string: "http://time.invalid:8080/now"))
        let error = await HTTPSClientTests.failure(of: source, url).0
        #expect(error?.code == .proxyAuthenticationRequired, "\(String(describing: error))")
        #expect(error?.statusCode == 407)
        #expect(proxy.requestHeads.first?.hasPrefix("HEAD http://time.invalid:8080/now HTTP/1.1\r\n") == true)
    }

    /// A proxy that takes 300 ms to open each tunnel: no request's interval includes that wait,
    /// since each is sent once the tunnel and the TLS session are up.
    @Test func theTunnelsSetUpDoesNotWidenTheBound() async throws {
        let proxy = try HostileProxy(.slowTunnel)
        defer { proxy.stop() }
        let truth = Duration.milliseconds(2_300)
        let (server, url) = try HTTPSClientTests.startServer(.init(offset: truth))
        defer { server.stop() }
        // Two requests: the first and one planned at the server's second boundary, each through a
        // tunnel of its own.
        var configuration = HTTPTimeClient.Configuration(
            maximumRequests: 2, requestTimeout: .seconds(3), deadline: .seconds(10))
        configuration.proxy = .fixed(try HTTPProxy.parse(proxy.url).get(), environment: [:])
        let source = HTTPTimeClient(
            configuration: configuration, trustRoots: .caFile(try TestCertificates.require().caFile))
        let measurement = try await source.measure(url)
        let offsets = measurement.offsets
        let slack = Duration.milliseconds(1)
        #expect(offsets.lowerBound - slack <= truth && truth <= offsets.upperBound + slack, "\(offsets)")
        #expect(proxy.requestHeads.count == measurement.requests.count)
        // Each round trip is the relay's (two 1 ms polls per hop) and the server's, far below the
        // 300 ms the proxy took to open the tunnel; 150 ms allows a loaded machine's wake-ups.
        let slowest = measurement.requests.map(\.roundTrip).max() ?? .zero
        #expect(slowest < .milliseconds(150), "slowest round trip \(slowest)")
        #expect(measurement.requests.count == 2)
        print(
            "proxy slow tunnel | \(measurement.requests.count) requests | slowest round trip \(slowest)"
                + " | offsets \(offsets)")
    }

    /// A proxy nobody listens on, and one configured with a scheme this client does not speak.
    @Test func unreachableAndUnsupportedProxies() async throws {
        let closed = try HostileProxy(.stall)
        let port = closed.port
        closed.stop()
        var configuration = HTTPTimeClient.Configuration(requestTimeout: .seconds(1), deadline: .seconds(2))
        configuration.proxy = .fixed(try HTTPProxy.parse("127.0.0.1:\(port)").get(), environment: [:])
        let url = try #require(URL(string: "https://time.invalid/"))
        let refused = await HTTPSClientTests.failure(of: HTTPTimeClient(configuration: configuration), url).0
        #expect(refused?.code == .proxyUnreachable, "\(String(describing: refused))")
        #expect(refused?.reason.contains("cannot connect to the proxy 127.0.0.1:\(port)") == true)
        configuration.proxy = .environment(["https_proxy": "socks5h://user:pw@127.0.0.1:1080"])
        let unsupported = await HTTPSClientTests.failure(
            of: HTTPTimeClient(configuration: configuration), url
        ).0
        #expect(unsupported?.code == .unsupportedProxy, "\(String(describing: unsupported))")
        #expect(unsupported?.reason.contains("pw") == false)
    }
}
