import Foundation
@testable import HTTPTime
import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeBase

@testable import NetworkClock
import WallClockReference

/// `https://` time against the hostile TLS peer (``HostileTLSPeer``): every fault at every stage
/// of the session ends in its typed ``HTTPTimeError`` within the request timeout, and the process
/// uses almost no CPU meanwhile — nor after the call returned, when a thread still spinning would
/// keep burning it (the defect of issue 18: two close_notify made the TLS write loop spin for
/// ever on a pool thread).
///
/// CPU time is the whole process's (`getrusage`), so these tests assume no other suite runs beside
/// them, as `swift test --no-parallel` (README, CI) or `--filter` run them.
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct HTTPSHostileTLSPeerTests {
    typealias Budget = HostileTLSPeerBudget

    /// The typed error each script must give: its code and words of its reason.
    static func expected(_ script: HostileTLSPeerScript) -> (HTTPTimeError.Code, String) {
        switch (script.stage, script.fault) {
        case (.insteadOfServerHello, .closeNotify), (.insteadOfServerHello, .twoCloseNotifies):
            return (.tls, "closed: the peer closed the TLS session (close_notify) during the handshake")
        case (.insteadOfServerHello, .fatalAlert):
            return (.tls, "alert handshake failure")
        case (.insteadOfServerHello, .absurdLength), (.afterHandshake, .absurdLength):
            return (.tls, "packet length too long")
        case (.afterServerHello, .closeNotify), (.afterServerHello, .twoCloseNotifies),
            (.afterServerHello, .fatalAlert), (.afterServerHello, .absurdLength),
            (.afterHandshake, .fatalAlert):
            // TLS 1.3 encrypts every record after the ServerHello: one in the clear is refused.
            return (.tls, "bad record type")
        case (_, .garbage), (_, .endlessZeros):
            return (.tls, "wrong version number")
        case (.afterHandshake, .stall), (.afterHandshake, .trickle):
            return (.timeout, "no complete response head")
        case (_, .stall), (_, .trickle):
            return (.timeout, "did not finish within")
        case (.afterHandshake, .closeNotify), (.afterHandshake, .twoCloseNotifies):
            // The genuine close_notify ends the stream; what follows it is never read.
            return (.transport, "closed the connection without sending a response")
        case (.afterHandshake, .close):
            return (.tls, "without a TLS close_notify")
        case (_, .close):
            return (.tls, "closed: the peer closed the connection during the handshake")
        }
    }

    /// A source trusting the test CA, on `pool`.
    static func source(pool: BlockingPool, certificates: TestCertificates) -> HTTPTimeClient {
        HTTPTimeClient(
            configuration: .init(requestTimeout: Budget.timeout, deadline: .seconds(2)),
            trustRoots: .caFile(certificates.caFile), pool: pool)
    }

    @Test(arguments: HostileTLSPeerScript.matrix)
    func aHostilePeerGivesItsTypedErrorInTimeWithoutSpinning(_ script: HostileTLSPeerScript) async throws {
        let certificates = try TestCertificates.require()
        let peer = try HostileTLSPeer(script, application: .http, certificates: certificates)
        defer { peer.stop() }
        let pool = BlockingPool(maximumThreads: 4)
        let url = try #require(URL(string: peer.url))
        let meter = CPUTimeMeter()
        let error = await HTTPSClientTests.failure(
            of: Self.source(pool: pool, certificates: certificates), url
        ).0
        let wall = meter.wall
        let cpu = await meter.cpu(afterSettling: Budget.settle)
        let (code, reason) = Self.expected(script)
        #expect(error?.code == code, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        if code == .timeout {
            #expect(wall >= Budget.timeout && wall < Budget.timeout + Budget.slack, "took \(wall)")
        } else {
            #expect(wall < Budget.timeout, "took \(wall)")
        }
        #expect(cpu < Budget.cpuLimit, "used \(cpu) of CPU in \(wall) (+ \(Budget.settle) settling)")
        // The exchange's pool thread is back: idle, with nothing queued.
        let statistics = pool.statistics
        #expect(statistics.idle == statistics.threads && statistics.queued == 0, "\(statistics)")
        #expect(peer.connections == 1)
        print(
            "hostile TLS peer | https | \(script) | \(error?.code.rawValue ?? "-") | wall \(wall) | cpu \(cpu)"
        )
    }
}

extension HTTPSHostileTLSPeerTests {
    /// Cancelling the measurement while the peer holds the connection: `cancelled` at once, the pool
    /// thread free within one poll slice, and the connection closed (the peer sees it go).
    @Test(arguments: HostileTLSPeerScript.holding)
    func cancellingFreesThePoolThreadWithinOneSlice(_ script: HostileTLSPeerScript) async throws {
        let certificates = try TestCertificates.require()
        let peer = try HostileTLSPeer(script, application: .http, certificates: certificates)
        defer { peer.stop() }
        let pool = BlockingPool(maximumThreads: 4)
        let source = HTTPTimeClient(
            configuration: .init(requestTimeout: .seconds(10), deadline: .seconds(20)),
            trustRoots: .caFile(certificates.caFile), pool: pool)
        let url = try #require(URL(string: peer.url))
        let task = Task { await HTTPSClientTests.failure(of: source, url).0 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(pool.statistics.idle == 0, "the exchange should be running: \(pool.statistics)")
        let meter = CPUTimeMeter()
        task.cancel()
        let error = await task.value
        let returned = meter.wall
        let freed = await pool.timeUntilIdle()
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(returned < Budget.wakeSlack, "the caller waited \(returned)")
        #expect(freed < CancellableWait.slice + Budget.wakeSlack, "the pool thread took \(freed) to stop")
        #expect(await peer.waitUntilAllClosed(within: .seconds(1)), "the connection is still open")
        let cpu = await meter.cpu(afterSettling: Budget.settle)
        #expect(cpu < Budget.cpuLimit, "used \(cpu)")
        print("hostile TLS peer | https cancelled | \(script) | pool thread free after \(freed) | cpu \(cpu)")
    }

    /// Eight hostile peers at once on a pool of eight threads — four of the callers cancelled
    /// after 300 ms, four left to time out — and then a good server through the same pool: once the
    /// callers have returned, no thread is busy, the CPU stayed low, and the good server answers at
    /// once (the pool was never exhausted).
    @Test func hostilePeersDoNotExhaustThePool() async throws {
        let certificates = try TestCertificates.require()
        let scripts =
            [
                HostileTLSPeerScript(.twoCloseNotifies, at: .insteadOfServerHello),
                HostileTLSPeerScript(.endlessZeros, at: .afterHandshake),
            ] + HostileTLSPeerScript.holding
        let peers = try scripts.map { try HostileTLSPeer($0, application: .http, certificates: certificates) }
        defer { peers.forEach { $0.stop() } }
        let pool = BlockingPool(maximumThreads: peers.count)
        let source = Self.source(pool: pool, certificates: certificates)
        let urls = try peers.map { try #require(URL(string: $0.url)) }
        let meter = CPUTimeMeter()
        let errors = await withTaskGroup(of: HTTPTimeError?.self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    let task = Task { await HTTPSClientTests.failure(of: source, url).0 }
                    if index.isMultiple(of: 2) {
                        try? await Task.sleep(for: .milliseconds(300))
                        task.cancel()
                    }
                    return await task.value
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let wall = meter.wall
        let freed = await pool.timeUntilIdle()
        let cpu = await meter.cpu(afterSettling: Budget.settle)
        #expect(errors.count == peers.count && errors.allSatisfy { $0 != nil })
        #expect(wall < Budget.timeout + Budget.slack, "took \(wall)")
        #expect(freed < CancellableWait.slice + Budget.wakeSlack, "threads still busy after \(freed)")
        // Eight cases at once: twice one case's limit (three trickles cost ~22 ms each).
        #expect(cpu < Budget.cpuLimit * 2, "used \(cpu)")

        let (good, goodURL) = try HTTPSClientTests.startServer(.init(offset: HTTPSClientTests.truth))
        defer { good.stop() }
        let start = ContinuousClock.now
        let before = BootTimeClock().now()
        let measurement = try await source.measure(goodURL)
        #expect(measurement.offsets.contains(HTTPSClientTests.truth))
        // Its first request went out at once (after a connect and a handshake): no thread of the
        // pool was still held by a hostile peer.
        let first = try #require(measurement.requests.first)
        #expect(first.sent - before < .milliseconds(300), "\(measurement.requests)")
        #expect(ContinuousClock.now - start < .seconds(2) + HTTPSClientTests.slack)
        print(
            "hostile TLS peer | https pool | \(peers.count) peers | wall \(wall) | threads idle after \(freed)"
                + " | cpu \(cpu) | \(pool.statistics)")
    }
}
