import LoopbackServers
import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import Testing
import TimeValues

/// A minimal NTS client written in the tests from the codecs (NTS-KE with ``TLSConnection``, NTP
/// requests sealed with ``AESSIV``), independent of the fake server's own code paths, so the
/// server's wire bytes can be checked one by one.
enum NTSTestClient {
    /// What an NTS-KE exchange yielded: the raw response bytes and the exported keys.
    struct Exchange {
        /// Every byte the server sent after the handshake, until it closed or 5 s passed.
        var bytes: [UInt8]
        /// The ALPN protocol agreed.
        var negotiatedProtocol: String?
        /// The TLS version agreed.
        var protocolVersion: TLSProtocolVersion
        /// The client-to-server key.
        var c2s: [UInt8]
        /// The server-to-client key.
        var s2c: [UInt8]

        /// The response as a strict parser (64 KiB cap) sees it: complete, or the error.
        var parsed: Result<NTSKEResponse, NTSError> {
            var parser = NTSKEResponseParser()
            do {
                if case .complete(let response) = try parser.consume(bytes) { return .success(response) }
                return .success(try parser.finish())
            } catch {
                return .failure(error)
            }
        }
    }

    /// Connects to `server`'s NTS-KE port, checks the certificate against `name` with the test CA,
    /// sends the standard request and reads the whole response.
    static func keyExchange(
        with server: FakeNTSServer, name: String = "localhost", caFile: String,
        minimumVersion: TLSProtocolVersion = .tls13
    ) throws -> Exchange {
        try keyExchange(
            host: server.host, port: server.kePort, name: name, caFile: caFile, minimumVersion: minimumVersion
        )
    }

    /// Connects to the NTS-KE server at `host`, `port` and sends `request` (by default the standard
    /// one; see ``keyExchange(with:name:caFile:minimumVersion:)``).
    static func keyExchange(
        host: String, port: UInt16, name: String = "localhost", caFile: String,
        minimumVersion: TLSProtocolVersion = .tls13, request: [UInt8] = NTSKERequest.encoded()
    ) throws -> Exchange {
        let address = try #require(SocketAddress(numericHost: host, port: port))
        let tcp = try TCPConnection(startingConnectionTo: address)
        #expect(try tcp.waitUntilConnected(timeout: .seconds(2)))
        let configuration = TLSClientConfiguration(
            minimumVersion: minimumVersion, applicationProtocols: [NTSKEConstants.alpn],
            trustRoots: .caFile(caFile))
        let connection = try TLSConnection.connect(
            over: tcp, serverName: name, configuration: configuration, timeout: .seconds(5))
        defer { connection.close() }
        try connection.write(request, timeout: .seconds(5))
        var bytes: [UInt8] = []
        while bytes.count < 200_000,
            case .bytes(let chunk) = try? connection.read(maximum: 16_384, timeout: .seconds(5))
        {
            bytes += chunk
        }
        return Exchange(
            bytes: bytes, negotiatedProtocol: connection.negotiatedProtocol,
            protocolVersion: connection.protocolVersion,
            c2s: try connection.exportKeyingMaterial(
                label: NTSKeyExport.label, context: NTSKeyExport.context(direction: .clientToServer),
                length: 32),
            s2c: try connection.exportKeyingMaterial(
                label: NTSKeyExport.label, context: NTSKeyExport.context(direction: .serverToClient),
                length: 32))
    }

    /// One NTS query as sent and answered.
    struct Query {
        /// The request's Unique Identifier.
        var uniqueIdentifier: [UInt8]
        /// The request's Unique Identifier field as on the wire.
        var uniqueIdentifierField: [UInt8]
        /// T1: when the request left, also its transmit timestamp.
        var t1: NTPTimestamp
        /// The reply's bytes.
        var reply: [UInt8]
        /// T4: when the reply arrived.
        var t4: NTPTimestamp
    }

    /// `count` random bytes.
    static func random(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255) }
    }

    /// Sends an NTS request with `cookie` and `placeholders` placeholders, sealed with `c2s`, to
    /// `server`'s NTP port, and waits up to 2 s for the reply.
    static func query(
        _ server: FakeNTSServer, cookie: [UInt8], c2s: [UInt8], placeholders: Int = 0
    ) throws -> Query {
        try query(
            host: server.host, port: server.ntpPort, cookie: cookie, c2s: c2s, placeholders: placeholders)
    }

    /// Sends an NTS request to `host`, `port` (see ``query(_:cookie:c2s:placeholders:)``).
    static func query(
        host: String, port: UInt16, cookie: [UInt8], c2s: [UInt8], placeholders: Int = 0
    ) throws -> Query {
        let address = try #require(SocketAddress(numericHost: host, port: port))
        let socket = try UDPSocket(connectingTo: address)
        defer { socket.close() }
        let uniqueIdentifier = random(32)
        let wallClock = SystemWallClock()
        let t1 = NTPTimestamp(wallClock.now())
        let request = try NTSRequest(
            header: NTPPacket.clientRequest(nonce: t1), uniqueIdentifier: uniqueIdentifier, cookie: cookie,
            placeholderCount: placeholders, nonce: random(16))
        let bytes = try request.encoded { (associatedData, nonce, plaintext) throws(NTSError) in
            do {
                return try AESSIV.seal(
                    key: c2s, nonce: nonce, associatedData: [associatedData], plaintext: plaintext)
            } catch {
                throw NTSError(.unencodable, "\(error)")
            }
        }
        try socket.send(bytes)
        let reply = try #require(try socket.receive(timeout: .seconds(2), capacity: 9_000))
        let t4 = NTPTimestamp(wallClock.now())
        let field = try NTPExtensionField(type: .uniqueIdentifier, body: uniqueIdentifier).encoded()
        return Query(
            uniqueIdentifier: uniqueIdentifier, uniqueIdentifierField: field, t1: t1, reply: reply, t4: t4)
    }

    /// The cookies in an authenticated reply, after verifying its authenticator with `s2c`.
    static func verifiedCookies(_ reply: [UInt8], s2c: [UInt8]) throws -> (
        packet: NTSPacket, cookies: [[UInt8]]
    ) {
        let packet = try NTSPacket(parsing: reply)
        let plaintext = try AESSIV.open(
            key: s2c, nonce: packet.authenticator.nonce,
            associatedData: [Array(reply[packet.associatedDataRange])],
            ciphertext: packet.authenticator.ciphertext)
        return (packet, NTSEncryptedFields.cookies(in: try NTSEncryptedFields.parse(plaintext)))
    }
}
