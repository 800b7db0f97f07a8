import LoopbackServers
import NetClockTLS
import Roughtime
import SNTP
import Testing
import TimeValues

/// Reply verification (RFC 10049 §5.4 and the drafts): valid replies of every version, the
/// vectors of independent implementations, and every hostile reply refused with its reason.
@Suite struct RoughtimeVerificationTests {
    static let servedVersions: [RoughtimeVersion] = RoughtimeVersion.supported

    @Test("a correct reply verifies, with the signed time and the version's shape", arguments: servedVersions)
    func validReply(_ version: RoughtimeVersion) throws {
        var configuration = try TestSupport.configuration()
        configuration.versions = [version]
        let request = try TestSupport.request(versions: [version], publicKey: configuration.publicKey)
        let reply = try TestSupport.reply(to: request, at: TestSupport.now, configuration: configuration)
        let response = try RoughtimeResponse(
            verifying: reply, for: request, publicKey: configuration.publicKey)
        #expect(response.version == version)
        #expect(response.midpoint == TestSupport.now)
        #expect(response.radius == .seconds(3))
        #expect(response.delegationStart == TestSupport.now - .seconds(3600))
        #expect(response.delegationEnd == TestSupport.now + .seconds(3600))
        #expect(response.pathLength == 0)
        #expect(response.bytes == reply)
        #expect(RoughtimePacket.isFramed(reply) == (version != .google))
        #expect(
            response.serverVersions == (RoughtimeProfile(version)?.hasSignedVersion == true ? [version] : []))
    }

    @Test func theServerPicksTheRFCFromTheDefaultOffer() throws {
        let configuration = try TestSupport.configuration()
        let request = try TestSupport.request(publicKey: configuration.publicKey)
        let reply = try TestSupport.reply(to: request, at: TestSupport.now, configuration: configuration)
        let response = try RoughtimeResponse(
            verifying: reply, for: request, publicKey: configuration.publicKey)
        #expect(response.version == .rfc)
        #expect(response.serverVersions == [.rfc] + (10...15).map { .draft($0) })
    }

    @Test("a batch shares one signature; each reply's path proves its own request", arguments: [2, 3, 8, 13])
    func batch(_ size: Int) throws {
        let configuration = try TestSupport.configuration()
        let requests = try (0..<size).map {
            try TestSupport.request(publicKey: configuration.publicKey, seed: UInt64(100 + $0))
        }
        let answers = try TestSupport.replies(to: requests, at: TestSupport.now, configuration: configuration)
        var depth = 0
        while 1 << depth < size { depth += 1 }
        for (index, (request, answer)) in zip(requests, answers).enumerated() {
            let reply = try #require(answer.reply)
            let response = try RoughtimeResponse(
                verifying: reply, for: request, publicKey: configuration.publicKey)
            #expect(response.index == UInt32(index))
            #expect(response.pathLength == depth)
            // Another request of the same batch cannot use this reply.
            let other = requests[(index + 1) % size]
            #expect(throws: RoughtimeError(.nonceMismatch, "")) {
                try RoughtimeResponse(verifying: reply, for: other, publicKey: configuration.publicKey)
            }
        }
    }

    @Test func aReplyUnderAnotherKeyIsRefused() throws {
        let configuration = try TestSupport.configuration()
        let request = try TestSupport.request(publicKey: configuration.publicKey)
        let reply = try TestSupport.reply(to: request, at: TestSupport.now, configuration: configuration)
        #expect(throws: RoughtimeError(.badDelegationSignature, "")) {
            try RoughtimeResponse(verifying: reply, for: request, publicKey: try TestSupport.key(2).publicKey)
        }
    }

    /// Each hostile behaviour of the fake server and the one reason a strict client refuses it for.
    static let hostile: [(FakeRoughtimeServer.Behaviour, RoughtimeError.Code)] = [
        (.badResponseSignature, .badResponseSignature), (.badDelegationSignature, .badDelegationSignature),
        (.expiredDelegation, .delegationExpired), (.midpointOutsideDelegation, .delegationNotYetValid),
        (.wrongMerklePath, .merklePathMismatch), (.foreignNonce, .nonceMismatch),
        (.oversizedReply, .amplification), (.garbage, .badFraming), (.truncatedReply, .framingLengthMismatch),
        (.wrongVersion, .versionNotOffered), (.zeroRadius, .zeroRadius), (.missingType, .missingType),
        (.wrongType, .wrongType), (.truncatedSignature, .truncatedTag), (.unsortedTags, .unsortedTags),
        (.duplicateTag, .duplicateTag),
    ]

    @Test("every hostile reply is refused with its reason", arguments: hostile)
    func hostileReply(_ behaviour: FakeRoughtimeServer.Behaviour, _ code: RoughtimeError.Code) throws {
        let configuration = try TestSupport.configuration(behaviour: behaviour)
        for batch in [1, 3] {
            let requests = try (0..<batch).map {
                try TestSupport.request(
                    versions: [.rfc], publicKey: configuration.publicKey, seed: UInt64(40 + $0))
            }
            let answers = try TestSupport.replies(
                to: requests, at: TestSupport.now, configuration: configuration)
            for (request, answer) in zip(requests, answers) {
                let reply = try #require(answer.reply, "\(behaviour): no reply (\(answer.dropped ?? "?"))")
                #expect(throws: RoughtimeError(code, ""), "\(behaviour), batch of \(batch)") {
                    try RoughtimeResponse(verifying: reply, for: request, publicKey: configuration.publicKey)
                }
            }
        }
    }

    @Test func aReplayedReplyIsRefused() throws {
        var configuration = try TestSupport.configuration()
        var responder = try FakeRoughtimeServer.Responder(seed: 1)
        let first = try TestSupport.request(publicKey: configuration.publicKey, seed: 1)
        let second = try TestSupport.request(publicKey: configuration.publicKey, seed: 2)
        let original = try #require(
            responder.answer([first.bytes], at: TestSupport.now, configuration: configuration)[0].reply)
        configuration.behaviour = .replay
        let replayed = try #require(
            responder.answer(
                [second.bytes], at: TestSupport.now + .seconds(60), configuration: configuration)[0].reply)
        #expect(replayed == original)
        #expect(throws: RoughtimeError(.nonceMismatch, "")) {
            try RoughtimeResponse(verifying: replayed, for: second, publicKey: configuration.publicKey)
        }
    }

    @Test func aDraft11ReplyCarriesItsVersionAtTheTopLevelAndMustHaveBeenOffered() throws {
        var configuration = try TestSupport.configuration()
        configuration.versions = [.draft(11)]
        let request = try TestSupport.request(
            versions: [.draft(11), .rfc], publicKey: configuration.publicKey)
        let reply = try TestSupport.reply(to: request, at: TestSupport.now, configuration: configuration)
        let message = try RoughtimeMessage(parsing: try RoughtimePacket.message(in: reply))
        #expect(try message.uint32(.ver, in: "reply") == RoughtimeVersion.draft(11).rawValue)
        #expect(try RoughtimeMessage(parsing: try message.required(.srep, in: "reply")).value(.ver) == nil)
        #expect(
            try RoughtimeResponse(verifying: reply, for: request, publicKey: configuration.publicKey).version
                == .draft(11))
        // The same nonce, but only the RFC offered: the reply's version was not asked for.
        let rfcOnly = try RoughtimeRequest(
            nonce: request.nonce, versions: [.rfc], publicKey: configuration.publicKey)
        #expect(throws: RoughtimeError(.versionNotOffered, "")) {
            try RoughtimeResponse(verifying: reply, for: rfcOnly, publicKey: configuration.publicKey)
        }
    }

    @Test func theRFCExampleFailsOnlyAtTheDelegationSignature() throws {
        // Signed with draft 19's "RoughTime" context strings; RFC 10049 says "Roughtime". Every
        // check before the delegation signature (framing, nonce, version, TYPE, SREP, the Merkle
        // proof over the whole request) passes, then the signature fails.
        for (publicKey, exchange) in RoughtimeVectors.rfcExample {
            let request = try RoughtimeRequest(parsing: exchange.request.bytes)
            let key = try #require(Base64.decode(publicKey))
            #expect(throws: RoughtimeError(.badDelegationSignature, "")) {
                try RoughtimeResponse(
                    verifying: TestSupport.hex(exchange.reply), for: request, publicKey: key)
            }
        }
    }

    @Test func theRFCExampleChainsItsNonces() throws {
        let example = RoughtimeVectors.rfcExample
        for index in 1..<example.count {
            let request = try RoughtimeRequest(parsing: example[index].exchange.request.bytes)
            let rand = try #require(example[index].exchange.rand.flatMap(Base64.decode))
            let expected = try RoughtimeChain.chainedNonce(
                after: TestSupport.hex(example[index - 1].exchange.reply), rand: rand, length: 32)
            #expect(request.nonce == expected)
        }
    }

    @Test(
        "cloudflare/roughtime's vectors verify (draft 11 and Google, batch of 10)", arguments: [false, true])
    func cloudflareVectors(google: Bool) throws {
        let seed =
            google ? RoughtimeVectors.cloudflareGoogleRootSeed : RoughtimeVectors.cloudflareDraft11RootSeed
        let key = try Ed25519.PrivateKey(seed: TestSupport.hex(seed)).publicKey
        for (position, exchange)
            in (google ? RoughtimeVectors.cloudflareGoogle : RoughtimeVectors.cloudflareDraft11).enumerated()
        {
            let request = try RoughtimeRequest(parsing: exchange.request.bytes)
            #expect(request.isGoogle == google)
            #expect(request.offeredVersions == [google ? .google : .draft(11)])
            let response = try RoughtimeResponse(
                verifying: TestSupport.hex(exchange.reply), for: request, publicKey: key)
            #expect(response.version == (google ? .google : .draft(11)))
            #expect(response.midpoint == UnixTime(seconds: 50))
            #expect(response.radius == .seconds(5))
            #expect(response.delegationStart == UnixTime(seconds: 0))
            #expect(response.delegationEnd == UnixTime(seconds: 100))
            #expect(response.index == [0, 5, 9][position])
            #expect(response.pathLength == 4)
        }
    }
}
