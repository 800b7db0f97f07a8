import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeBase

@testable import NTSClient

/// NTS-KE (through ``NTSQuery``, on a blocking pool as the sync engine runs it) against the hostile
/// TLS peer (``HostileTLSPeer``, ALPN `ntske/1`): every fault at every stage ends in its typed
/// ``NTSFailure`` within the key exchange's timeout, using almost no CPU, and leaves no pool thread
/// busy once the caller has returned or given up.
///
/// CPU time is the whole process's (`getrusage`), so these tests assume no other suite runs beside
/// them, as `swift test --no-parallel` (README, CI) or `--filter` run them.
@Suite(.serialized, .enabled(if: TestCertificates.runnable, "needs the openssl command"))
struct NTSHostileTLSPeerTests {
    typealias Budget = HostileTLSPeerBudget

    /// The failure each script must give: its code and words of its reason.
    static func expected(_ script: HostileTLSPeerScript) -> (String, String) {
        switch (script.stage, script.fault) {
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

    /// One NTS query of `peer` on `pool` (a key exchange, and a burst if it succeeded), cancelled
    /// with the calling task.
    static func query(
        _ peer: HostileTLSPeer, pool: BlockingPool, certificates: TestCertificates,
        keyExchangeTimeout: Duration = Budget.timeout
    ) async -> NTSFailure? {
        let (port, ca) = (peer.port, certificates.caFile)
        do {
            return try await pool.run { flag in
                let client = SNTPClient()
                let query = NTSQuery(
                    client: client, trust: .caFile(ca), keyExchangeTimeout: keyExchangeTimeout)
                return query.query(
                    .nts("127.0.0.1", port: port),
                    options: QueryOptions(samples: 1, interval: .zero, timeout: .milliseconds(300)),
                    deadline: client.monotonic.now() + keyExchangeTimeout * 2,
                    isCancelled: { flag.isCancelled }
                ).failure
            }
        } catch {
            return .cancelled(peer.hostAndPort)
        }
    }

    @Test(arguments: HostileTLSPeerScript.matrix)
    func aHostilePeerGivesItsTypedFailureInTimeWithoutSpinning(_ script: HostileTLSPeerScript) async throws {
        let certificates = try TestCertificates.require()
        let peer = try HostileTLSPeer(script, application: .ntske, certificates: certificates)
        defer { peer.stop() }
        let pool = BlockingPool(maximumThreads: 4)
        let meter = CPUTimeMeter()
        let failure = await Self.query(peer, pool: pool, certificates: certificates)
        let wall = meter.wall
        let cpu = await meter.cpu(afterSettling: Budget.settle)
        let (code, reason) = Self.expected(script)
        #expect(failure?.code.rawValue == code, "\(String(describing: failure))")
        #expect(failure?.reason.contains(reason) == true, "\(String(describing: failure))")
        if code == "nts_ke_tls_timed_out" {
            #expect(
                wall >= Budget.timeout && wall < Budget.timeout + Budget.slack, "took \(wall)"
            )
        } else {
            #expect(wall < Budget.timeout, "took \(wall)")
        }
        #expect(cpu < Budget.cpuLimit, "used \(cpu) of CPU in \(wall) (+ \(Budget.settle) settling)")
        let statistics = pool.statistics
        #expect(statistics.idle == statistics.threads && statistics.queued == 0, "\(statistics)")
        #expect(peer.connections == 1)
        print(
            "hostile TLS peer | nts-ke | \(script) | \(failure?.code.rawValue ?? "-") | wall \(wall) | cpu \(cpu)"
        )
    }

    /// Cancelling the query while the peer holds the connection (a 10 s key exchange timeout):
    /// the pool thread is free within one poll slice, and the connection is closed.
    @Test(arguments: HostileTLSPeerScript.holding)
    func cancellingFreesThePoolThreadWithinOneSlice(_ script: HostileTLSPeerScript) async throws {
        let certificates = try TestCertificates.require()
        let peer = try HostileTLSPeer(script, application: .ntske, certificates: certificates)
        defer { peer.stop() }
        let pool = BlockingPool(maximumThreads: 4)
        let task = Task {
            await Self.query(peer, pool: pool, certificates: certificates, keyExchangeTimeout: .seconds(10))
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(pool.statistics.idle == 0, "the key exchange should be running: \(pool.statistics)")
        let meter = CPUTimeMeter()
        task.cancel()
        let failure = await task.value
        let freed = await pool.timeUntilIdle()
        #expect(failure?.code.rawValue == "cancelled", "\(String(describing: failure))")
        #expect(freed < CancellableWait.slice + Budget.wakeSlack, "the pool thread took \(freed) to stop")
        #expect(await peer.waitUntilAllClosed(within: .seconds(1)), "the connection is still open")
        let cpu = await meter.cpu(afterSettling: Budget.settle)
        #expect(cpu < Budget.cpuLimit, "used \(cpu)")
        print(
            "hostile TLS peer | nts-ke cancelled | \(script) | pool thread free after \(freed) | cpu \(cpu)")
    }

    /// Eight hostile NTS-KE peers at once on a pool of eight threads, half of the callers cancelled
    /// after 300 ms: no thread stays busy, the CPU stays low, and a good NTS server is then queried
    /// through the same pool at once.
    @Test func hostilePeersDoNotExhaustThePool() async throws {
        let certificates = try TestCertificates.require()
        let scripts =
            [
                HostileTLSPeerScript(.twoCloseNotifies, at: .insteadOfServerHello),
                HostileTLSPeerScript(.endlessZeros, at: .afterHandshake),
            ] + HostileTLSPeerScript.holding
        let peers = try scripts.map {
            try HostileTLSPeer($0, application: .ntske, certificates: certificates)
        }
        defer { peers.forEach { $0.stop() } }
        let pool = BlockingPool(maximumThreads: peers.count)
        let meter = CPUTimeMeter()
        let failures = await withTaskGroup(of: NTSFailure?.self) { group in
            for (index, peer) in peers.enumerated() {
                group.addTask {
                    let task = Task { await Self.query(peer, pool: pool, certificates: certificates) }
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
        #expect(failures.count == peers.count && failures.allSatisfy { $0 != nil })
        #expect(wall < Budget.timeout + Budget.slack, "took \(wall)")
        #expect(freed < CancellableWait.slice + Budget.wakeSlack, "threads still busy after \(freed)")
        // Eight cases at once: twice one case's limit (three trickles cost ~22 ms each).
        #expect(cpu < Budget.cpuLimit * 2, "used \(cpu)")

        let (good, _) = try NTSHostileServerTests.server()
        defer { good.stop() }
        let ca = certificates.caFile
        let start = ContinuousClock.now
        let outcome = try await pool.run { _ in
            let client = SNTPClient()
            return NTSQuery(client: client, trust: .caFile(ca)).query(
                .nts("127.0.0.1", port: good.kePort), options: NTSHostileServerTests.options,
                deadline: client.monotonic.now() + .seconds(5))
        }
        #expect(outcome.failure == nil && outcome.result?.samples.count == 2, "\(outcome)")
        #expect(
            ContinuousClock.now - start < .seconds(1), "the good server took \(ContinuousClock.now - start)")
        print(
            "hostile TLS peer | nts-ke pool | \(peers.count) peers | wall \(wall) | threads idle after \(freed)"
                + " | cpu \(cpu) | \(pool.statistics)")
    }
}
