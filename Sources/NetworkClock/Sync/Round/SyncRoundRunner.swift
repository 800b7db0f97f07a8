#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NTSClient
import NetClockPlatform
import NetClockTLS
import Roughtime
import SNTP
import Synchronization
import TimeValues

/// Performs a ``SyncRound``'s actions, and nothing else: one loop on a pool thread keeps a
/// connected UDP socket per target and waits on them all and on a ``SignalPipe`` at once; name
/// lookups, NTS key exchanges and the Roughtime query run as jobs on the pool, the HTTP(S)
/// measurements as a task, and each reports back through the pipe. Every decision is the round's.
struct SyncRoundRunner: Sendable {
    /// Where the loop and the jobs run.
    var pool: BlockingPool
    /// The clock the round is told the time on (the exchange clock).
    var monotonic: any MonotonicClock
    /// The wall clock the round's timestamps are mapped to.
    var wall: any WallClock
    /// How names resolve and whom NTS-KE trusts.
    var policy: SyncPolicy
    /// The HTTP(S) client of the fallback (its deadline is cut to what the round leaves).
    var http: HTTPTimeClient
    /// The URLs it measures.
    var httpURLs: [URL]
    /// The Roughtime query, when Roughtime servers are configured.
    var roughtime: RoughtimeStage?
    /// Told about each HTTP(S) URL as it starts and ends.
    var progress: SyncProgressObserver?
    /// Given what the round has gathered each time a reply adds a sample while it goes on (on the
    /// loop's thread: it must be quick); returns whether that already meets the sync's need, which
    /// ends the round (``SyncRound/Event/satisfied``).
    var onProvisional: (@Sendable (RoundEvidence) -> Bool)?

    /// Runs `round` to its end and returns what it gathered; cancelling the calling task ends it
    /// within one poll slice (the round's evidence then says so). The round's deadlines count from
    /// this call, not from when a pool thread takes it up.
    func run(_ round: SyncRound) async -> RoundEvidence? {
        let runner = self
        let began = monotonic.now()
        return try? await pool.run { flag in runner.loop(round, startedAt: began, stop: flag) }
    }

    /// The loop: perform, wait, tell the round, until it finishes.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    private func loop(_ round: SyncRound, startedAt began: MonotonicInstant, stop: CancellationFlag)
        -> RoundEvidence?
    {
        var round = round
        guard let signal = try? SignalPipe() else { return nil }
        let mailbox = Mailbox(signal: signal)
        let jobs = CancellationFlag()
        defer { jobs.cancel() }
        var sockets: [SyncRound.TargetID: UDPSocket] = [:]
        var buffer = [UInt8](repeating: 0, count: DatagramLoop.receiveCapacity)
        var events: [SyncRound.Event] = []
        var actions = round.handle(.start(TimeMapping(wall: wall, monotonic: monotonic)), at: began)
        while true {
            for action in actions {
                switch action {
                case .finish(let evidence):
                    sockets.values.forEach { $0.close() }
                    return evidence
                case .send(let datagram, let target, let address):
                    do {
                        if sockets[target] == nil { sockets[target] = try UDPSocket(connectingTo: address) }
                        try sockets[target]?.send(datagram)
                    } catch {
                        events.append(.transportFailure(target, error))
                    }
                case .close(let target):
                    sockets.removeValue(forKey: target)?.close()
                case .provisional(let evidence):
                    if onProvisional?(evidence) == true { events.append(.satisfied) }
                default:
                    start(action, mailbox: mailbox, flag: jobs)
                }
            }
            actions = []
            if stop.isCancelled { events.append(.cancel) }
            if events.isEmpty {
                let now = monotonic.now()
                let wake = round.wake ?? now + CancellableWait.slice
                let ids = Array(sockets.keys)
                let ready =
                    (try? ReadinessWait.wait(
                        on: ids.compactMap { sockets[$0] }, signal: signal,
                        timeout: min(max(wake - now, .zero), CancellableWait.slice))) ?? []
                for position in ready {
                    events += Self.drain(ids[position], sockets[ids[position]], into: &buffer)
                }
                events += mailbox.take()
                if let due = round.wake, monotonic.now() >= due { events.append(.timer) }
            }
            for event in events { actions += round.handle(event, at: monotonic.now()) }
            events = []
        }
    }

    /// Every datagram waiting on `socket`, or its failure.
    private static func drain(_ target: SyncRound.TargetID, _ socket: UDPSocket?, into buffer: inout [UInt8])
        -> [SyncRound.Event]
    {
        guard let socket else { return [] }
        var events: [SyncRound.Event] = []
        while true {
            do {
                guard let count = try socket.receiveWaiting(into: &buffer) else { return events }
                events.append(.datagram(target, Array(buffer.prefix(count))))
            } catch {
                return events + [.transportFailure(target, error)]
            }
        }
    }

    /// Starts the work `action` asks for elsewhere; its result comes back through `mailbox`.
    private func start(_ action: SyncRound.Action, mailbox: Mailbox, flag: CancellationFlag) {
        let (policy, pool) = (self.policy, self.pool)
        switch action {
        case .resolve(let servers):
            for server in servers {
                pool.submit(flag: flag) {
                    let result = Result { () throws(TransportError) in
                        try Resolver.resolve(
                            server.host, port: server.port ?? policy.defaultPort, family: policy.family,
                            limit: policy.addressesPerHost)
                    }
                    mailbox.post(.resolved(server, result))
                }
            }
        case .prepareNTS(let server, let association, let certificateTime, let timeout):
            pool.submit(flag: flag) {
                let preparation = Self.prepare(
                    server, association: association, certificateTime: certificateTime, timeout: timeout,
                    policy: policy, isCancelled: { flag.isCancelled })
                mailbox.post(.ntsPrepared(server, preparation))
            }
        case .queryRoughtime:
            guard let roughtime else {
                let none = RoughtimeError(.noServers, "no Roughtime server to ask")
                return mailbox.post(
                    .roughtime(
                        RoughtimeQueryResult(servers: [], agreement: .failure(none), chain: RoughtimeChain()))
                )
            }
            pool.submit(flag: flag) {
                let result = roughtime.client.query(
                    roughtime.servers, options: roughtime.options, isCancelled: { flag.isCancelled })
                mailbox.post(.roughtime(result))
            }
        case .measureHTTP(let within, let certificateTime):
            var client = http
            var configuration = client.configuration
            configuration.deadline = min(configuration.deadline, within)
            configuration.requestTimeout = min(configuration.requestTimeout, within)
            client = HTTPTimeClient(
                configuration: configuration, trustRoots: client.trustRoots, monotonicClock: monotonic,
                wallClock: wall)
            client.certificateTime = certificateTime
            let (urls, progress) = (httpURLs, self.progress)
            Task {
                let outcomes = await Self.measureAll(urls, with: client, progress: progress)
                mailbox.post(.httpMeasured(outcomes))
            }
        case .send, .close, .provisional, .finish:
            break
        }
    }

    /// An NTS server's association made ready: a key exchange unless `association` is given,
    /// then its NTP address.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    private static func prepare(
        _ server: ServerName, association: NTSAssociation?, certificateTime: CertificateTime,
        timeout: Duration,
        policy: SyncPolicy, isCancelled: () -> Bool
    ) -> SyncRound.NTSPreparation {
        var preparation = SyncRound.NTSPreparation(association: association, keyExchanged: association == nil)
        if association == nil {
            do {
                let result = try NTSKeyExchange.run(
                    with: server, trust: policy.trustRoots.tlsTrustRoots, family: policy.family,
                    certificateTime: certificateTime, timeout: timeout, isCancelled: isCancelled)
                preparation.association = NTSAssociation(result)
            } catch {
                preparation.failure = error
                return preparation
            }
        }
        guard let ready = preparation.association else { return preparation }
        do {
            preparation.ntpAddress = try ready.ntpAddress(family: policy.family)
        } catch {
            preparation.failure = NTSFailure(
                .ntpResolutionFailed, "the NTP server \(ready.keys.ntpHost) named by \(server): \(error)")
        }
        return preparation
    }
}

extension SyncRoundRunner {
    /// One URL's outcome and its place in the list: what a measuring child task returns.
    private struct IndexedOutcome: Sendable {
        let index: Int
        let outcome: Result<HTTPTimeMeasurement, HTTPTimeError>
    }

    /// Measures every URL at once with `client`, telling `progress` as each starts and ends.
    static func measureAll(
        _ urls: [URL], with client: HTTPTimeClient, progress: SyncProgressObserver?
    ) async -> [Result<HTTPTimeMeasurement, HTTPTimeError>] {
        await withTaskGroup(of: IndexedOutcome.self) { group in
            for (index, url) in urls.enumerated() {
                progress?(.httpStarted(url: url.absoluteString))
                group.addTask {
                    // The child's value is made whole after the await. Swift 6.3's optimiser drops
                    // the parts of a task's tuple result written before a suspension, as in
                    // `return (index, .success(try await ...))` (swiftlang/swift#91911, reverted in
                    // #92155): the index came back as garbage and `watch` crashed (issue 28).
                    let outcome = await measurement(of: url, with: client)
                    return IndexedOutcome(index: index, outcome: outcome)
                }
            }
            var results: [Result<HTTPTimeMeasurement, HTTPTimeError>?] = Array(
                repeating: nil, count: urls.count)
            for await child in group {
                results[child.index] = child.outcome
                let measured = (try? child.outcome.get()) != nil
                progress?(.httpFinished(url: urls[child.index].absoluteString, measured: measured))
            }
            return results.compactMap { $0 }
        }
    }

    private static func measurement(of url: URL, with client: HTTPTimeClient) async
        -> Result<HTTPTimeMeasurement, HTTPTimeError>
    {
        do throws(HTTPTimeError) {
            return .success(try await client.measure(url))
        } catch {
            return .failure(error)
        }
    }
}

/// The events other threads hand the loop, and the pipe that wakes it for them.
private final class Mailbox: Sendable {
    private let events = Mutex<[SyncRound.Event]>([])
    private let signal: SignalPipe

    init(signal: SignalPipe) { self.signal = signal }

    /// Hands `event` to the loop (from any thread).
    func post(_ event: SyncRound.Event) {
        events.withLock { $0.append(event) }
        signal.signal()
    }

    /// The events posted so far, oldest first.
    func take() -> [SyncRound.Event] {
        events.withLock { events in
            defer { events = [] }
            return events
        }
    }
}
