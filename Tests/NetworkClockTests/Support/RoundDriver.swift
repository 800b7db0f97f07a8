import Foundation
import HTTPTime
import LoopbackServers
import NTSClient
import NetClockPlatform
import Roughtime
import SNTP
import TimeValues

@testable import NetworkClock

/// Drives a ``SyncRound`` on a manual clock against a simulated network, as swift-nio's
/// `EmbeddedEventLoop` drives a handler: every action the round asks for is answered by a scripted
/// world at an exact instant, and nothing waits. Name lookups, servers, Roughtime and HTTP(S) each
/// answer after their own delay; an NTP server answers every request it gets (or not, or with a
/// kiss) one round trip later.
struct RoundDriver {
    /// One simulated NTP server address.
    struct Server {
        /// How far its clock is ahead of the truth (the mapping's wall clock).
        var offset: Duration = .zero
        /// One way of the round trip.
        var oneWay: Duration = .milliseconds(5)
        /// What it does with a request.
        var behaviour: Behaviour = .answer

        enum Behaviour {
            /// A correct reply.
            case answer
            /// No reply at all.
            case silent
            /// ICMP port unreachable, one round trip later.
            case refused
            /// A Kiss-o'-Death with this code.
            case kiss(String)
        }
    }

    /// The instant the round starts at, and the wall clock it maps to (the truth: an honest server's
    /// offset is zero).
    static let start = MonotonicInstant(sinceOrigin: .seconds(1_000))
    static let wall = UnixTime(sinceEpoch: .seconds(1_796_040_000))
    static let mapping = TimeMapping(wall: wall, monotonic: start)

    private(set) var round: SyncRound
    private(set) var now = Self.start
    /// The world: what each name resolves to and after how long.
    var names: [ServerName: (addresses: [SocketAddress], delay: Duration)] = [:]
    /// Each address's server.
    var servers: [SocketAddress: Server] = [:]
    /// Roughtime's answer and its delay (nil: it never answers).
    var roughtime: (result: RoughtimeQueryResult, delay: Duration)?
    /// The HTTP(S) outcomes and their delay.
    var http: (outcomes: [Result<HTTPTimeMeasurement, HTTPTimeError>], delay: Duration) = (
        [], .milliseconds(10)
    )
    /// NTS preparations: what each server's comes to, after how long.
    var nts: [ServerName: (preparation: SyncRound.NTSPreparation, delay: Duration)] = [:]

    /// Every action the round took, with its instant.
    private(set) var log: [(at: MonotonicInstant, action: SyncRound.Action)] = []
    /// What the round finished with, once it has.
    private(set) var evidence: RoundEvidence?
    /// Every provisional evidence the round gave, with its instant.
    private(set) var provisional: [(at: MonotonicInstant, evidence: RoundEvidence)] = []
    /// Whether a provisional decision on the evidence meets the sync's need (the facade's rule);
    /// nil: no need, the round runs to its end.
    var satisfiedBy: ((RoundEvidence) -> Bool)?
    private var pending: [(at: MonotonicInstant, order: Int, event: SyncRound.Event)] = []
    private var order = 0

    init(_ round: SyncRound) {
        self.round = round
    }

    /// The instants the round sent to `address`, relative to the start.
    func sends(to address: SocketAddress) -> [Duration] {
        log.compactMap { entry in
            guard case .send(_, _, let to) = entry.action, to == address else { return nil }
            return entry.at - Self.start
        }
    }

    /// The instant of the first action `matching`, relative to the start.
    func first(_ matching: (SyncRound.Action) -> Bool) -> Duration? {
        log.first { matching($0.action) }.map { $0.at - Self.start }
    }

    /// Starts the round and runs it until it finishes or `limit` passes; an event scheduled by
    /// `interrupt` (for example a cancellation) joins at its instant.
    @discardableResult
    mutating func run(limit: Duration = .seconds(60), interrupt: (Duration, SyncRound.Event)? = nil)
        -> RoundEvidence?
    {
        if let interrupt { schedule(interrupt.1, at: Self.start + interrupt.0) }
        perform(round.handle(.start(Self.mapping), at: now))
        while evidence == nil {
            let next = [pending.map(\.at).min(), round.wake].compactMap { $0 }.min()
            guard let next, next <= Self.start + limit else { break }
            now = max(now, next)
            if let index = pending.indices.filter({ pending[$0].at <= now }).min(by: {
                (pending[$0].at, pending[$0].order) < (pending[$1].at, pending[$1].order)
            }) {
                let event = pending.remove(at: index).event
                perform(round.handle(event, at: now))
            } else {
                perform(round.handle(.timer, at: now))
            }
        }
        return evidence
    }

    private mutating func schedule(_ event: SyncRound.Event, at instant: MonotonicInstant) {
        order += 1
        pending.append((instant, order, event))
    }

    private mutating func perform(_ actions: [SyncRound.Action]) {
        for action in actions {
            log.append((now, action))
            switch action {
            case .resolve(let names):
                for name in names {
                    guard let world = self.names[name] else {
                        schedule(
                            .resolved(name, .failure(.resolutionFailed(host: name.host, reason: "unknown"))),
                            at: now)
                        continue
                    }
                    schedule(.resolved(name, .success(world.addresses)), at: now + world.delay)
                }
            case .send(let bytes, let target, let address):
                guard let server = servers[address] else { continue }
                let arrival = now + server.oneWay
                switch server.behaviour {
                case .silent:
                    break
                case .refused:
                    schedule(
                        .transportFailure(target, .connectionRefused(address: address)),
                        at: arrival + server.oneWay)
                case .answer, .kiss:
                    guard let request = try? NTPPacket(decoding: bytes) else { continue }
                    let received = Self.mapping.wallTime(at: arrival) + server.offset
                    var reply = FakeNTPServer.ReplyBuilder.correctReply(
                        to: request, receiveTime: received, transmitTime: received + .microseconds(20),
                        configuration: FakeNTPServer.Configuration())
                    if case .kiss(let code) = server.behaviour {
                        reply.stratum = .kissOfDeath
                        reply.leap = .alarm
                        reply.referenceID = NTPPacket.ReferenceID(ascii: code)
                    }
                    schedule(
                        .datagram(target, reply.encoded()), at: arrival + server.oneWay + .microseconds(20))
                }
            case .prepareNTS(let server, _, _, _):
                guard let world = nts[server] else { continue }
                schedule(.ntsPrepared(server, world.preparation), at: now + world.delay)
            case .queryRoughtime:
                if let roughtime { schedule(.roughtime(roughtime.result), at: now + roughtime.delay) }
            case .measureHTTP:
                schedule(.httpMeasured(http.outcomes), at: now + http.delay)
            case .close:
                break
            case .provisional(let evidence):
                provisional.append((now, evidence))
                // As the runner does: a provisional decision that meets the need ends the round.
                if satisfiedBy?(evidence) == true { schedule(.satisfied, at: now) }
            case .finish(let evidence):
                self.evidence = evidence
            }
        }
    }
}

extension RoundDriver {
    /// A round of `servers` (plain unless `.nts`) with the given options and deadline, fresh
    /// etiquette unless `registry` is given, and the fallback rule of the one decision.
    static func round(
        servers: [ServerName],
        query: QueryOptions = QueryOptions(samples: 1, interval: .seconds(2), timeout: .seconds(1)),
        httpURLs: [URL] = [], deadline: Duration? = nil, minimumSources: Int? = nil,
        mode: NetworkClock.NTSMode = .require,
        roughtime: Bool = false, certificateTime: SyncRound.CertificateTimeSource = .known(nil, .wallClock),
        registry: SourceRegistry = SourceRegistry(), sessions: NTSSessions = NTSSessions(),
        reservesAddresses: Bool = false
    ) -> (SyncRound, SyncDecision) {
        var policy = SyncPolicy(servers: servers, query: query, minimumSources: minimumSources)
        policy.ntsMode = mode
        if roughtime {
            policy.roughtimeServers = [
                RoughtimeServer(
                    name: "rt", addresses: ["127.0.0.1:2002"], publicKey: Array(repeating: 1, count: 32))
            ]
        }
        let decision = SyncDecision(policy: policy, httpURLs: httpURLs)
        var setup = SyncRound.Setup(
            policy: policy, httpURLs: httpURLs,
            deadline: deadline ?? policy.deadline + (httpURLs.isEmpty ? .zero : .seconds(10)),
            usesRoughtime: roughtime, certificateTime: certificateTime,
            needsFallback: { decision.needsFallback($0) })
        setup.reservesAddresses = reservesAddresses
        let round = SyncRound(
            setup: setup, registry: registry, sessions: sessions, nonces: SystemNonceSource())
        return (round, decision)
    }

    /// The address 127.0.0.`last`:123.
    static func address(_ last: UInt8) -> SocketAddress {
        SocketAddress(ipv4: (127, 0, 0, last), port: 123)
    }
}
