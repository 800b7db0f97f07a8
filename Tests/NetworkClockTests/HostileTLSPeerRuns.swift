import Foundation
@testable import HTTPTime
import LoopbackServers
import NetClockPlatform
import NetClockTestSupport
@testable import NTSClient
import SNTP
import Testing
import TimeValues

/// How ``HostileTLSPeerTests`` plays its cases: each against a peer of its own, with its client on
/// a one-thread pool whose CPU clock is read before the call and after every case has returned and
/// a settle period passed; the cases at once, the stalls and trickles first.
enum HostileTLSPeerRuns {
    typealias Budget = HostileTLSPeerBudget

    /// The client under test.
    enum Client: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `https://` time: ``HTTPTimeClient`` (no ALPN).
        case https
        /// NTS-KE: ``NTSQuery`` (ALPN `ntske/1`).
        case ntske

        var application: HostileTLSPeerScript.Application {
            switch self {
            case .https: return .http
            case .ntske: return .ntske
            }
        }

        var testDescription: String { rawValue }
    }

    /// One client against one script.
    struct Case: Hashable, Sendable, CustomTestStringConvertible {
        var client: Client
        var script: HostileTLSPeerScript
        var testDescription: String { "\(client.rawValue) | \(script)" }
    }

    /// What a case showed.
    struct Ending: Sendable, CustomStringConvertible {
        /// The error's code and reason (`-` when the call succeeded, which no case may).
        var code = "-"
        var reason = ""
        /// From the call (or the cancel) to its return.
        var wall = Duration.zero
        /// The client thread's CPU from before the call to after the settle period.
        var cpu = Duration.zero
        /// Whether the case's pool thread was idle, nothing queued, once every case returned.
        var poolIdle = false
        /// The connections the peer accepted.
        var connections = 0
        /// After a cancel: how long until the pool thread was idle, and whether the peer saw the
        /// connection close within 1 s.
        var freed = Duration.zero
        var allClosed = false
        /// Before a cancel: whether the peer had the connection and the pool thread was busy.
        var wasRunning = false

        var description: String { "\(code): \(reason) (wall \(wall), cpu \(cpu))" }
    }

    /// How many cases run at once: the twelve stalls and trickles (which last until their
    /// timeouts) side by side, with eight lanes left for the cases that end at once.
    static let lanes = 20

    /// Plays `cases` at once (``lanes`` at a time, holding ones first); when `cancelling`, each is
    /// given a 10 s timeout and cancelled once the peer holds its connection.
    static func all(_ cases: [Case], cancelling: Bool) async -> [Case: Result<Ending, CaseError>] {
        let certificates: TestCertificates
        do {
            certificates = try TestCertificates.require()
        } catch {
            return Dictionary(uniqueKeysWithValues: cases.map { ($0, .failure(CaseError("\(error)"))) })
        }
        let order =
            cases.filter { $0.script.fault.holdsTheConnection }
            + cases.filter { !$0.script.fault.holdsTheConnection }
        var started: [Case: Started] = [:]
        var endings: [Case: Result<Ending, CaseError>] = [:]
        await withTaskGroup(of: (Case, Result<Started, CaseError>).self) { group in
            var next = order.makeIterator()
            func start(_ item: Case) {
                group.addTask {
                    // Awaited before the tuple is built (Tools/check-split-tuples.sh).
                    let outcome: Result<Started, CaseError>
                    do throws(CaseError) {
                        outcome = .success(try await play(item, cancelling: cancelling, certificates))
                    } catch {
                        outcome = .failure(error)
                    }
                    return (item, outcome)
                }
            }
            for _ in 0..<lanes { if let item = next.next() { start(item) } }
            for await (item, result) in group {
                switch result {
                case .success(let run): started[item] = run
                case .failure(let error): endings[item] = .failure(error)
                }
                if let item = next.next() { start(item) }
            }
        }
        // A thread left spinning keeps burning CPU meanwhile.
        try? await Task.sleep(for: Budget.settle)
        for (item, run) in started {
            var ending = run.ending
            if let cpu = run.meter.cpuUsed {
                ending.cpu = cpu
            } else {
                ending.cpu = .seconds(3600)
                ending.reason += " (the pool thread ended before its CPU was read)"
            }
            let statistics = run.meter.pool.statistics
            ending.poolIdle = statistics.idle == statistics.threads && statistics.queued == 0
            ending.connections = run.peer.connections
            run.peer.stop()
            endings[item] = .success(ending)
            print("hostile TLS peer | \(cancelling ? "cancelled | " : "")\(item.testDescription) | \(ending)")
        }
        return endings
    }

    /// Why a case could not be played.
    struct CaseError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A played case whose CPU is read once every case has returned.
    private struct Started: Sendable {
        var ending: Ending
        var peer: HostileTLSPeer
        var meter: MeteredPool
    }

    private static func play(_ item: Case, cancelling: Bool, _ certificates: TestCertificates)
        async throws(CaseError) -> Started
    {
        let peer: HostileTLSPeer
        do {
            peer = try HostileTLSPeer(
                item.script, application: item.client.application, certificates: certificates)
        } catch {
            throw CaseError("no peer: \(error)")
        }
        // One thread that stays: its CPU clock is the case's client's.
        guard let meter = await MeteredPool.make() else {
            peer.stop()
            throw CaseError("no thread CPU clock on this platform")
        }
        let pool = meter.pool
        var ending = Ending()
        let clockNow = ContinuousClock()
        if cancelling {
            let task = Task {
                await call(item.client, peer, pool: pool, certificates: certificates, timeout: .seconds(10))
            }
            // Real time on purpose: the cancel must reach a call waiting in its socket, so the peer
            // first accepts the connection and the client gets well into its wait.
            let waited = clockNow.now
            while peer.connections < 1 && clockNow.now - waited < .seconds(2) {
                try? await Task.sleep(for: .milliseconds(5))
            }
            try? await Task.sleep(for: .milliseconds(100))
            ending.wasRunning = peer.connections >= 1 && pool.statistics.idle == 0
            let start = clockNow.now
            task.cancel()
            let failure = await task.value
            ending.wall = clockNow.now - start
            ending.code = failure?.code ?? "-"
            ending.reason = failure?.reason ?? ""
            ending.freed = await pool.timeUntilIdle()
            ending.allClosed = await peer.waitUntilAllClosed(within: .seconds(1))
        } else {
            let start = clockNow.now
            let failure = await call(item.client, peer, pool: pool, certificates: certificates)
            ending.wall = clockNow.now - start
            ending.code = failure?.code ?? "-"
            ending.reason = failure?.reason ?? ""
        }
        return Started(ending: ending, peer: peer, meter: meter)
    }

    /// One call of `client` against `peer` on `pool` with `timeout` (the request's or the key
    /// exchange's): its error's code and reason, nil if it succeeded; cancelled with the task.
    static func call(
        _ client: Client, _ peer: HostileTLSPeer, pool: BlockingPool, certificates: TestCertificates,
        timeout: Duration = Budget.timeout
    ) async -> (code: String, reason: String)? {
        switch client {
        case .https:
            let source = HTTPTimeClient(
                configuration: .init(requestTimeout: timeout, deadline: max(.seconds(2), timeout * 2)),
                trustRoots: .caFile(certificates.caFile), pool: pool)
            guard let url = URL(string: peer.url) else { return ("-", "no URL in \(peer.url)") }
            do throws(HTTPTimeError) {
                _ = try await source.measure(url)
                return nil
            } catch {
                return (error.code.rawValue, error.reason)
            }
        case .ntske:
            let (port, ca) = (peer.port, certificates.caFile)
            do {
                let failure = try await pool.run { flag in
                    let client = SNTPClient()
                    let query = NTSQuery(client: client, trust: .caFile(ca), keyExchangeTimeout: timeout)
                    return query.query(
                        .nts("127.0.0.1", port: port),
                        options: QueryOptions(samples: 1, interval: .zero, timeout: .milliseconds(300)),
                        deadline: client.monotonic.now() + timeout * 2,
                        isCancelled: { flag.isCancelled }
                    ).failure
                }
                return failure.map { ($0.code.rawValue, $0.reason) }
            } catch {
                return ("cancelled", "the caller gave up")
            }
        }
    }

    /// A good server of `client`'s protocol asked through `pool`: it answers (with the truth, for
    /// `https://` on its first request), and how long that took.
    static func goodServerAnswers(_ client: Client, pool: BlockingPool, certificates: TestCertificates)
        async throws -> Duration
    {
        let clock = ContinuousClock()
        switch client {
        case .https:
            let truth = Duration.milliseconds(2_300)
            let (good, url) = try HTTPSClientTests.startServer(.init(offset: truth))
            defer { good.stop() }
            let source = HTTPTimeClient(
                configuration: .init(maximumRequests: 1), trustRoots: .caFile(certificates.caFile), pool: pool
            )
            let start = clock.now
            let measurement = try await source.measure(url)
            #expect(measurement.offsets.contains(truth), "\(measurement.offsets)")
            return clock.now - start
        case .ntske:
            let good = try FakeNTSServer(
                configuration: .init(
                    certificates: certificates, offset: .milliseconds(1_500), behaviour: .normal))
            defer { good.stop() }
            let (port, ca) = (good.kePort, certificates.caFile)
            let start = clock.now
            let outcome = try await pool.run { _ in
                let client = SNTPClient()
                return NTSQuery(client: client, trust: .caFile(ca)).query(
                    .nts("127.0.0.1", port: port),
                    options: QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(300)),
                    deadline: client.monotonic.now() + .seconds(5))
            }
            #expect(outcome.failure == nil && outcome.result?.samples.count == 2, "\(outcome)")
            return clock.now - start
        }
    }
}

extension HostileTLSPeerScript.Fault {
    /// Whether the peer holds the connection as long as the client stays (a stall, a trickle):
    /// such a case ends when its timeout is due.
    var holdsTheConnection: Bool {
        switch self {
        case .stall, .trickle: return true
        default: return false
        }
    }
}
