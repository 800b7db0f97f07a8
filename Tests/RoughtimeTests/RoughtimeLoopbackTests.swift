import Foundation
import LoopbackServers
import NetClockPlatform
import Roughtime
import SNTP
import Testing
import TimeValues
import WallClockReference

/// The client through the real datagram loop against the fake server on loopback: the time, the
/// liar and its proof, batching, every hostile reply refused, the round trip in the bound,
/// fallback addresses, cancellation.
///
/// The fake server runs on this machine's clock, so an honest interval must contain the local
/// wall clock (offset zero) — the loopback round trip is far below the 3 s radius, and the fake's
/// midpoint is the current second truncated (at most 1 s early), well inside it.
@Suite(.serialized, .wallClockReference) struct RoughtimeLoopbackTests {
    static func server(
        _ fake: FakeRoughtimeServer, name: String,
        versions: [RoughtimeVersion] = RoughtimeVersion.defaultOffer
    )
        -> RoughtimeServer
    {
        RoughtimeServer(name: name, address: fake.hostAndPort, publicKey: fake.publicKey, versions: versions)
    }

    /// Options for exchanges that must fail: short timeouts, one pass.
    static var quick: RoughtimeClient.Options {
        var options = RoughtimeClient.Options()
        options.timing = RoughtimeExchange.Timing(timeout: .milliseconds(250), firstRetransmission: nil)
        options.passes = 1
        return options
    }

    @Test("one server, each version", arguments: RoughtimeVersion.supported)
    func oneServer(_ version: RoughtimeVersion) throws {
        var configuration = try FakeRoughtimeServer.Configuration()
        configuration.versions = [version]
        let fake = try FakeRoughtimeServer(configuration: configuration)
        defer { fake.stop() }
        let result = RoughtimeClient().query([
            Self.server(
                fake, name: "fake",
                versions: version == .google ? [.google] : [.rfc] + (10...15).map { .draft($0) })
        ])
        let agreement = try result.agreedTime()
        #expect(agreement.offsets.contains(.zero), "\(result)")
        let report = try #require(result.servers.first)
        #expect(report.status == .agreed)
        #expect(report.version == version)
        #expect(report.validReplies == 2, "two passes")
        #expect(report.requests == 2)
        #expect(try #require(report.roundTrip) < .milliseconds(500))
        // RADI + half the round trip, at least; the ageing to the last reply adds nanoseconds.
        #expect(agreement.interval.radius >= .seconds(3) + (report.roundTrip ?? .zero) / 2)
        #expect(fake.statistics.repliesByVersion[version] == 2)
    }

    @Test func threeServersWithAnHourAheadLiar() throws {
        let honest = try (0..<2).map { _ in try FakeRoughtimeServer(configuration: try .init()) }
        let liar = try FakeRoughtimeServer(configuration: try .init(offset: .seconds(3600)))
        defer { for server in honest + [liar] { server.stop() } }
        let servers = [
            Self.server(honest[0], name: "a"), Self.server(liar, name: "liar"),
            Self.server(honest[1], name: "b"),
        ]
        let result = RoughtimeClient().query(servers)
        let agreement = try result.agreedTime()
        #expect(agreement.offsets.contains(.zero), "\(result)")
        #expect(agreement.interval.radius < .seconds(4))
        #expect(agreement.agreeing == [0, 2])
        #expect(result.liars == ["liar"])
        #expect(result.servers[1].status == .falseticker)
        let report = try #require(result.malfeasanceReport, "\(result)")
        #expect(report.entries.count == 6)
        #expect(try report.contradictions().allSatisfy { $0.earlier == 1 || $0.earlier == 4 })
        #expect(result.description.contains("liars: liar"))
    }

    @Test func oneAgainstOneHasNoTimeButStillAProof() throws {
        let honest = try FakeRoughtimeServer(configuration: try .init())
        let liar = try FakeRoughtimeServer(configuration: try .init(offset: .seconds(-600)))
        defer { honest.stop(); liar.stop() }
        let result = RoughtimeClient().query([Self.server(honest, name: "a"), Self.server(liar, name: "b")])
        #expect(throws: RoughtimeError(.noMajority, "")) { try result.agreedTime() }
        #expect(result.servers.map(\.status) == [.unresolved, .unresolved])
        #expect(result.liars.isEmpty, "one against one cannot say who lied")
        #expect(result.malfeasanceReport != nil, "but the chain proves that one did")
    }

    @Test func aBatchSharesOneSignatureAndThePathsAreNotEmpty() throws {
        var configuration = try FakeRoughtimeServer.Configuration()
        configuration.batchWindow = .milliseconds(100)
        let fake = try FakeRoughtimeServer(configuration: configuration)
        defer { fake.stop() }
        let address = try #require(SocketAddress(numericHost: fake.host, port: fake.port))
        let requests = try (0..<3).map {
            try TestSupport.request(publicKey: fake.publicKey, seed: UInt64(70 + $0))
        }
        let sockets = try requests.map { _ in try UDPSocket(connectingTo: address) }
        defer { for socket in sockets { socket.close() } }
        for (socket, request) in zip(sockets, requests) { try socket.send(request.bytes) }
        for (socket, request) in zip(sockets, requests) {
            let reply = try #require(try socket.receive(timeout: .seconds(2)))
            let response = try RoughtimeResponse(verifying: reply, for: request, publicKey: fake.publicKey)
            #expect(response.pathLength == 2, "three requests in a tree of four leaves")
        }
        #expect(fake.statistics.batches == 1)
        #expect(fake.statistics.largestBatch == 3)
    }

    /// Each hostile behaviour against its own fake server (primed, for the replay, with a reply to
    /// an earlier request): the cases only wait on loopback replies and the silent one's timeout,
    /// so they run at once; every message names its behaviour.
    @Test func everyHostileReplyIsRefusedAndGivesNoTime() async throws {
        let expected: [FakeRoughtimeServer.Behaviour: RoughtimeError.Code] = [
            .badResponseSignature: .badResponseSignature, .badDelegationSignature: .badDelegationSignature,
            .expiredDelegation: .delegationExpired, .midpointOutsideDelegation: .delegationNotYetValid,
            .wrongMerklePath: .merklePathMismatch, .foreignNonce: .nonceMismatch, .replay: .nonceMismatch,
            .oversizedReply: .amplification, .garbage: .badFraming, .truncatedReply: .framingLengthMismatch,
            .wrongVersion: .versionNotOffered, .zeroRadius: .zeroRadius, .missingType: .missingType,
            .wrongType: .wrongType, .truncatedSignature: .truncatedTag, .unsortedTags: .unsortedTags,
            .duplicateTag: .duplicateTag,
        ]
        let hostile = FakeRoughtimeServer.Behaviour.hostile
        let runs = try await BlockingCases.run(hostile, lanes: hostile.count) { behaviour in
            let fake = try FakeRoughtimeServer(configuration: try .init())
            defer { fake.stop() }
            let server = Self.server(fake, name: "hostile")
            // Prime the replay with a reply to an earlier request.
            let primed = (try? RoughtimeClient().query([server], options: Self.quick).agreedTime()) != nil
            fake.update { $0.behaviour = behaviour }
            return (primed, RoughtimeClient().query([server], options: Self.quick))
        }
        #expect(runs.count == hostile.count)
        for (behaviour, (primed, result)) in runs {
            #expect(primed, "\(behaviour): the priming query gave no time")
            #expect(throws: RoughtimeError.self, "\(behaviour) must not give a time") {
                try result.agreedTime()
            }
            let status = try #require(result.servers.first?.status, "\(behaviour): no report")
            if behaviour == .silent {
                #expect(status == .timedOut, "\(behaviour): \(status)")
            } else {
                let code = try #require(expected[behaviour], "\(behaviour): no expected code")
                #expect(status == .rejected(RoughtimeError(code, "")), "\(behaviour): \(status)")
                #expect(result.servers.first?.rejections.count == 1, "\(behaviour): \(result)")
            }
            #expect(result.chain.links.isEmpty, "\(behaviour): \(result)")
        }
    }

    @Test func aSlowReplyWidensTheBoundByHalfItsRoundTrip() throws {
        var configuration = try FakeRoughtimeServer.Configuration()
        configuration.replyDelay = .milliseconds(300)
        let fake = try FakeRoughtimeServer(configuration: configuration)
        defer { fake.stop() }
        var options = RoughtimeClient.Options()
        options.passes = 1
        let result = RoughtimeClient().query([Self.server(fake, name: "slow")], options: options)
        let agreement = try result.agreedTime()
        let roundTrip = try #require(result.servers.first?.roundTrip)
        // Wall-clock timing on loopback: the 300 ms hold is a floor; scheduling only adds to it.
        #expect(roundTrip >= .milliseconds(300))
        #expect(agreement.interval.radius >= .seconds(3) + roundTrip / 2)
        #expect(agreement.offsets.upperBound - agreement.offsets.lowerBound >= .seconds(6) + roundTrip)
        #expect(agreement.offsets.contains(.zero), "\(result)")
    }

    @Test func aLostRequestIsRetransmittedAndTheRoundTripCountsFromTheFirst() throws {
        var configuration = try FakeRoughtimeServer.Configuration()
        configuration.ignoredRequests = 1
        let fake = try FakeRoughtimeServer(configuration: configuration)
        defer { fake.stop() }
        var options = RoughtimeClient.Options()
        options.passes = 1
        options.timing = RoughtimeExchange.Timing(
            timeout: .seconds(3), firstRetransmission: .milliseconds(300))
        let result = RoughtimeClient().query([Self.server(fake, name: "lossy")], options: options)
        let agreement = try result.agreedTime()
        let report = try #require(result.servers.first)
        #expect(report.requests == 2)
        #expect(fake.statistics.requests == 2)
        // The server may have signed in answer to the first copy: the round trip, and so the
        // bound, start at the first transmission (wall-clock floor: 300 ms of waiting happened).
        let roundTrip = try #require(report.roundTrip)
        #expect(roundTrip >= .milliseconds(300))
        #expect(agreement.interval.radius >= .seconds(3) + roundTrip / 2)
        #expect(agreement.offsets.contains(.zero))
    }

    @Test func aDeadAddressFallsBackToTheNext() throws {
        let fake = try FakeRoughtimeServer(configuration: try .init())
        defer { fake.stop() }
        let dead = try RoughlyPeer.freePort()
        let server = RoughtimeServer(
            name: "two addresses", addresses: ["127.0.0.1:\(dead)", fake.hostAndPort],
            publicKey: fake.publicKey)
        let result = RoughtimeClient().query([server], options: Self.quick)
        #expect((try? result.agreedTime()) != nil, "\(result)")
        #expect(result.servers.first?.address == "127.0.0.1:\(fake.port)")
    }

    @Test func invalidServersAreReportedNotQueried() throws {
        let result = RoughtimeClient().query(
            [
                RoughtimeServer(name: "short key", address: "127.0.0.1:9", publicKey: [1, 2, 3]),
                RoughtimeServer(
                    name: "no address", addresses: [], publicKey: [UInt8](repeating: 1, count: 32)),
                RoughtimeServer(
                    name: "mixed", address: "127.0.0.1:9", publicKey: [UInt8](repeating: 1, count: 32),
                    versions: [.google, .rfc]),
            ], options: Self.quick)
        #expect(
            result.servers.allSatisfy {
                $0.status.code == "failed" && $0.status.error?.code == .invalidServer
            })
        #expect(result.servers.allSatisfy { $0.requests == 0 })
        #expect(throws: RoughtimeError(.notEnoughReplies, "")) { try result.agreedTime() }
        #expect(throws: RoughtimeError(.noServers, "")) { try RoughtimeClient().query([]).agreedTime() }
    }

    @Test func cancellationStopsTheSequence() throws {
        let fake = try FakeRoughtimeServer(configuration: try .init(behaviour: .silent))
        defer { fake.stop() }
        let clock = BootTimeClock()
        let start = clock.now()
        let result = RoughtimeClient().query([Self.server(fake, name: "silent")]) {
            clock.now() - start > .milliseconds(200)
        }
        #expect(throws: RoughtimeError(.cancelled, "")) { try result.agreedTime() }
        // Wall-clock bound on loopback: the loop notices cancellation within one wait slice.
        #expect(clock.now() - start < .seconds(2))
    }

    @Test(.enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, "no IPv6 loopback here"))
    func overIPv6() throws {
        var configuration = try FakeRoughtimeServer.Configuration()
        configuration.host = "::1"
        let fake = try FakeRoughtimeServer(configuration: configuration)
        defer { fake.stop() }
        #expect(fake.hostAndPort.hasPrefix("[::1]:"))
        let result = RoughtimeClient().query([Self.server(fake, name: "v6")], options: Self.quick)
        #expect(try result.agreedTime().offsets.contains(.zero), "\(result)")
    }
}
