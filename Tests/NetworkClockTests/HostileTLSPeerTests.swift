import Foundation
@testable import HTTPTime
import LoopbackServers
import NetClockPlatform
import NetClockTestSupport
@testable import NTSClient
import SNTP
import Testing
import TimeValues
import WallClockReference

/// Both TLS clients — `https://` time (``HTTPTimeClient``) and NTS-KE (``NTSQuery``, on a blocking
/// pool as the sync engine runs it) — against the hostile TLS peer (``HostileTLSPeer``): every fault
/// at every stage ends in its typed error within the timeout, the client thread uses almost no CPU
/// meanwhile nor after the call returned (the defect of issue 18: two close_notify made the TLS
/// write loop spin for ever on a pool thread), and a cancelled call frees its thread at once.
///
/// Each case runs its client on a pool of its own with one thread, whose CPU clock
/// (``ThreadCPUClock``) is that case's CPU whatever runs beside it; so the cases, which mostly
/// wait on their peers, all run at once (``HostileTLSPeerRuns``) and each argument checks its own.
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"), .wallClockReference)
struct HostileTLSPeerTests {
    typealias Budget = HostileTLSPeerBudget
    typealias Client = HostileTLSPeerRuns.Client
    typealias Case = HostileTLSPeerRuns.Case

    /// Every fault at every stage, for each client.
    static let matrix = Client.allCases.flatMap { client in
        HostileTLSPeerScript.matrix.map { Case(client: client, script: $0) }
    }
    /// The stalls and trickles, which hold the connection as long as the client stays, per client.
    static let holding = Client.allCases.flatMap { client in
        HostileTLSPeerScript.holding.map { Case(client: client, script: $0) }
    }

    /// The matrix, played once, all at once; each argument reads its own case.
    static let matrixRun = Task { await HostileTLSPeerRuns.all(matrix, cancelling: false) }
    /// The holding cases, cancelled while the peer holds them, all at once.
    static let cancelRun = Task { await HostileTLSPeerRuns.all(holding, cancelling: true) }

    /// The typed error each case must give: its code and words of its reason.
    static func expected(_ item: Case) -> (code: String, reason: String) {
        let script = item.script
        switch item.client {
        case .https: return expectedHTTPS(script.stage, script.fault)
        case .ntske: return expectedNTSKE(script.stage, script.fault)
        }
    }

    private static func expectedHTTPS(
        _ stage: HostileTLSPeerScript.Stage, _ fault: HostileTLSPeerScript.Fault
    )
        -> (code: String, reason: String)
    {
        switch (stage, fault) {
        case (.insteadOfServerHello, .closeNotify), (.insteadOfServerHello, .twoCloseNotifies):
            return ("tls", "closed: the peer closed the TLS session (close_notify) during the handshake")
        case (.insteadOfServerHello, .fatalAlert):
            return ("tls", "alert handshake failure")
        case (.insteadOfServerHello, .absurdLength), (.afterHandshake, .absurdLength):
            return ("tls", "packet length too long")
        case (.afterServerHello, .closeNotify), (.afterServerHello, .twoCloseNotifies),
            (.afterServerHello, .fatalAlert), (.afterServerHello, .absurdLength),
            (.afterHandshake, .fatalAlert):
            // TLS 1.3 encrypts every record after the ServerHello: one in the clear is refused.
            return ("tls", "bad record type")
        case (_, .garbage), (_, .endlessZeros):
            return ("tls", "wrong version number")
        case (.afterHandshake, .stall), (.afterHandshake, .trickle):
            return ("timeout", "no complete response head")
        case (_, .stall), (_, .trickle):
            return ("timeout", "did not finish within")
        case (.afterHandshake, .closeNotify), (.afterHandshake, .twoCloseNotifies):
            // The genuine close_notify ends the stream; what follows it is never read.
            return ("transport", "closed the connection without sending a response")
        case (.afterHandshake, .close):
            return ("tls", "without a TLS close_notify")
        case (_, .close):
            return ("tls", "closed: the peer closed the connection during the handshake")
        }
    }

    private static func expectedNTSKE(
        _ stage: HostileTLSPeerScript.Stage, _ fault: HostileTLSPeerScript.Fault
    )
        -> (code: String, reason: String)
    {
        switch (stage, fault) {
        case (.insteadOfServerHello, .closeNotify), (.insteadOfServerHello, .twoCloseNotifies):
            return (
                "nts_ke_tls_closed", "the peer closed the TLS session (close_notify) during the handshake"
            )
        case (.insteadOfServerHello, .fatalAlert):
            return ("nts_ke_tls_handshake_failed", "alert handshake failure")
        case (.insteadOfServerHello, .absurdLength):
            return ("nts_ke_tls_handshake_failed", "packet length too long")
        case (.afterServerHello, .closeNotify), (.afterServerHello, .twoCloseNotifies),
            (.afterServerHello, .fatalAlert), (.afterServerHello, .absurdLength):
            // TLS 1.3 encrypts every record after the ServerHello: one in the clear is refused.
            return ("nts_ke_tls_handshake_failed", "bad record type")
        case (.afterHandshake, .fatalAlert):
            return ("nts_ke_tls_connection_failed", "bad record type")
        case (.afterHandshake, .absurdLength):
            return ("nts_ke_tls_connection_failed", "packet length too long")
        case (.afterHandshake, .garbage), (.afterHandshake, .endlessZeros):
            return ("nts_ke_tls_connection_failed", "wrong version number")
        case (_, .garbage), (_, .endlessZeros):
            return ("nts_ke_tls_handshake_failed", "wrong version number")
        case (.afterHandshake, .stall), (.afterHandshake, .trickle):
            return ("nts_ke_tls_timed_out", "the read did not finish in time")
        case (_, .stall), (_, .trickle):
            return ("nts_ke_tls_timed_out", "the handshake did not finish in time")
        case (.afterHandshake, .closeNotify), (.afterHandshake, .twoCloseNotifies):
            return ("nts_ke_truncated", "the server closed the session before End of Message")
        case (.afterHandshake, .close):
            return ("nts_ke_truncated", "the connection closed before End of Message")
        case (_, .close):
            return ("nts_ke_tls_closed", "the peer closed the connection during the handshake")
        }
    }

    /// Each fault ends in its typed error: at once, or when the 0.5 s timeout is due for a stall
    /// or a trickle (not later), and the client thread used less than ``HostileTLSPeerBudget/cpuLimit``
    /// over the case and the settle period after every case returned.
    @Test(arguments: matrix)
    func aHostilePeerGivesItsTypedErrorInTimeWithoutSpinning(_ item: Case) async throws {
        let run = try (await Self.matrixRun.value)[item].map { try $0.get() }
        let ending = try #require(run, "the case did not run")
        let (code, reason) = Self.expected(item)
        #expect(ending.code == code, "\(ending.description)")
        #expect(ending.reason.contains(reason), "\(ending.description)")
        if item.script.fault.holdsTheConnection {
            #expect(
                ending.wall >= Budget.timeout && ending.wall < Budget.timeout + Budget.slack,
                "took \(ending.wall)")
        } else {
            #expect(ending.wall < Budget.timeout, "took \(ending.wall)")
        }
        #expect(ending.cpu < Budget.cpuLimit, "the client thread used \(ending.cpu) of CPU in \(ending.wall)")
        // The case's pool thread is back: idle, with nothing queued.
        #expect(ending.poolIdle, "the pool thread is still busy")
        #expect(ending.connections == 1)
    }

    /// Cancelling while the peer holds the connection (a 10 s timeout): `cancelled` at once, the
    /// pool thread free within one poll slice, the connection closed (the peer sees it go).
    @Test(arguments: holding)
    func cancellingFreesThePoolThreadWithinOneSlice(_ item: Case) async throws {
        let run = try (await Self.cancelRun.value)[item].map { try $0.get() }
        let ending = try #require(run, "the case did not run")
        #expect(ending.wasRunning, "the exchange was not running when cancelled")
        #expect(ending.code == "cancelled", "\(ending.description)")
        #expect(ending.wall < Budget.wakeSlack, "the caller waited \(ending.wall) after cancelling")
        #expect(
            ending.freed < CancellableWait.slice + Budget.wakeSlack,
            "the pool thread took \(ending.freed) to stop")
        #expect(ending.allClosed, "the connection is still open")
        #expect(ending.cpu < Budget.cpuLimit, "the client thread used \(ending.cpu)")
    }

    /// Eight hostile peers at once on a pool of eight threads — four callers cancelled after 300 ms
    /// (real time: the cancel must reach calls waiting in their sockets), four left to time out —
    /// and then a good server through the same pool: once the callers have returned no thread is
    /// busy, the CPU stayed low, and the good server answers at once (the pool was never
    /// exhausted). CPU is the whole process's: the suite is serialized and nothing else runs here.
    @Test(arguments: Client.allCases)
    func hostilePeersDoNotExhaustThePool(_ client: Client) async throws {
        let certificates = try TestCertificates.require()
        let scripts =
            [
                HostileTLSPeerScript(.twoCloseNotifies, at: .insteadOfServerHello),
                HostileTLSPeerScript(.endlessZeros, at: .afterHandshake),
            ] + HostileTLSPeerScript.holding
        let peers = try scripts.map {
            try HostileTLSPeer($0, application: client.application, certificates: certificates)
        }
        defer { peers.forEach { $0.stop() } }
        let pool = BlockingPool(maximumThreads: peers.count)
        let meter = CPUTimeMeter()
        let codes = await withTaskGroup(of: String?.self) { group in
            for (index, peer) in peers.enumerated() {
                group.addTask {
                    let task = Task {
                        await HostileTLSPeerRuns.call(client, peer, pool: pool, certificates: certificates)
                    }
                    if index.isMultiple(of: 2) {
                        try? await Task.sleep(for: .milliseconds(300))
                        task.cancel()
                    }
                    return await task.value?.code
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let wall = meter.wall
        let freed = await pool.timeUntilIdle()
        let cpu = await meter.cpu(afterSettling: Budget.settle)
        #expect(codes.count == peers.count && codes.allSatisfy { $0 != nil }, "\(codes)")
        #expect(wall < Budget.timeout + Budget.slack, "took \(wall)")
        #expect(freed < CancellableWait.slice + Budget.wakeSlack, "threads still busy after \(freed)")
        // Eight cases at once, both sides of the loopback: twice one case's limit (three trickles
        // cost ~22 ms each).
        #expect(cpu < Budget.cpuLimit * 2, "used \(cpu)")
        let answered = try await HostileTLSPeerRuns.goodServerAnswers(
            client, pool: pool, certificates: certificates)
        #expect(answered < .seconds(1), "the good server took \(answered)")
    }
}

extension HostileTLSPeerTests {
    /// The meter the cases rely on: a one-thread pool's thread that spins is seen, from another
    /// thread, to use the CPU it used (250 ms of it, the spin bounded by 5 s of wall time on a
    /// loaded machine), and an idle one is not.
    @Test func theThreadCPUClockSeesASpinningPoolThread() async throws {
        let meter = try #require(await MeteredPool.make())
        try? await Task.sleep(for: .milliseconds(50))
        let idle = try #require(meter.cpuUsed)
        let spun = try await meter.pool.run { _ in
            let wall = ContinuousClock.now
            while (meter.cpuUsed ?? .zero) < .milliseconds(250) && ContinuousClock.now - wall < .seconds(5) {}
            return meter.cpuUsed ?? .zero
        }
        let seen = try #require(meter.cpuUsed)
        #expect(idle < .milliseconds(10), "an idle thread used \(idle)")
        #expect(spun >= .milliseconds(250), "the spin used \(spun)")
        #expect(seen >= spun, "seen from outside: \(seen)")
    }
}
