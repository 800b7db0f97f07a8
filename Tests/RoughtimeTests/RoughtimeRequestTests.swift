import NetClockTLS
import Roughtime
import Testing

/// Requests: 1024-byte messages with the tags in order, `SRV` as RFC 10049 defines it, Google's
/// other shape, and the configurations that cannot make a request.
@Suite struct RoughtimeRequestTests {
    @Test func framedRequestLayout() throws {
        let key = try TestSupport.key(1)
        let nonce = TestSupport.bytes(32, seed: 3)
        let request = try RoughtimeRequest(
            nonce: nonce, versions: [.draft(12), .rfc, .draft(10), .rfc], publicKey: key.publicKey)
        #expect(request.bytes.count == 1036)
        #expect(RoughtimePacket.isFramed(request.bytes))
        let message = try RoughtimeMessage(parsing: try RoughtimePacket.message(in: request.bytes))
        #expect(message.encoded.count == 1024)
        // The order of RFC 10049's example request.
        #expect(message.entries.map(\.tag) == [.ver, .srv, .nonc, .type, .zzzz])
        #expect(message.value(.ver) == [1, 0, 0, 0, 10, 0, 0, 0x80, 12, 0, 0, 0x80])
        #expect(request.offeredVersions == [.rfc, .draft(10), .draft(12)])
        #expect(message.value(.nonc) == nonce)
        #expect(try message.uint32(.type, in: "request") == 0)
        #expect(message.value(.zzzz)?.allSatisfy { $0 == 0 } == true)
        let srv = try #require(message.value(.srv))
        #expect(srv == Array(try Digest.hash(.sha512, [0xFF], key.publicKey).prefix(32)))
        // Read back as a server would.
        let parsed = try RoughtimeRequest(parsing: request.bytes)
        #expect(parsed.nonce == nonce)
        #expect(parsed.offeredVersions == [.rfc, .draft(10), .draft(12)])
    }

    @Test func withoutAKeyThereIsNoSRV() throws {
        let request = try RoughtimeRequest(
            nonce: TestSupport.bytes(32, seed: 3), versions: [.rfc], publicKey: nil)
        let message = try RoughtimeMessage(parsing: try RoughtimePacket.message(in: request.bytes))
        #expect(message.value(.srv) == nil)
        #expect(request.bytes.count == 1036)
    }

    @Test func googleRequestIsABareMessage() throws {
        let nonce = TestSupport.bytes(64, seed: 4)
        let request = try RoughtimeRequest(
            nonce: nonce, versions: [.google], publicKey: [UInt8](repeating: 1, count: 32))
        #expect(request.bytes.count == 1024)
        #expect(!RoughtimePacket.isFramed(request.bytes))
        let message = try RoughtimeMessage(parsing: request.bytes)
        #expect(message.entries.map(\.tag) == [.nonc, .googlePadding])
        #expect(message.value(.nonc) == nonce)
        #expect(request.isGoogle)
        #expect(try RoughtimeRequest(parsing: request.bytes).isGoogle)
    }

    @Test func theRFCExampleRequestsParse() throws {
        for (publicKey, exchange) in RoughtimeVectors.rfcExample {
            let bytes = exchange.request.bytes
            let request = try RoughtimeRequest(parsing: bytes)
            #expect(request.offeredVersions == [.rfc])
            #expect(request.nonce.count == 32)
            let message = try RoughtimeMessage(parsing: try RoughtimePacket.message(in: bytes))
            let key = Array(try #require(Base64.decode(publicKey)))
            #expect(message.value(.srv) == (try RoughtimeRequest.serverHash(key)))
            // Our request for the same nonce and key is byte for byte the RFC's example.
            #expect(
                try RoughtimeRequest(nonce: request.nonce, versions: [.rfc], publicKey: key).bytes == bytes)
        }
    }

    /// Found by the fuzzer: a framed request whose `VER` lists Google-Roughtime's number was read
    /// back as a Google request, though its nonce is 32 bytes and Google's are 64.
    @Test func aFramedRequestOfferingGoogleIsRefused() throws {
        let message = RoughtimeMessage([
            RoughtimeMessage.Entry(.ver, RoughtimeMessage.bytes(RoughtimeVersion.google.rawValue)),
            RoughtimeMessage.Entry(.nonc, TestSupport.bytes(32, seed: 5)),
        ])
        let error = try #require(throws: RoughtimeError.self) {
            try RoughtimeRequest(parsing: RoughtimePacket.frame(message.encoded))
        }
        #expect(error.code == .badVersionList)
        #expect("\(error)".contains("Google-Roughtime"))
    }

    static let invalid: [(versions: [RoughtimeVersion], nonceLength: Int)] = [
        ([], 32), ([.google, .rfc], 32), ([.draft(7)], 32), ([.rfc], 31), ([.google], 32),
        (Array((1...40).map { RoughtimeVersion(rawValue: $0) }), 32),
    ]

    @Test("configurations that cannot make a request", arguments: invalid.indices)
    func invalidRequest(_ index: Int) {
        let (versions, length) = Self.invalid[index]
        #expect(throws: RoughtimeError(.invalidServer, "")) {
            try RoughtimeRequest(
                nonce: [UInt8](repeating: 7, count: length), versions: versions, publicKey: nil)
        }
    }
}
