import LoopbackServers
import LoopbackTestSupport
import NTS
import NetClockPlatform
import NetClockTLS
import NetClockTestSupport
import SNTP
import Testing
import TimeValues
import WallClockReference

/// The fake NTS server against a client written in the tests from the codecs (``NTSTestClient``):
/// the correct exchange end to end, then every hostile behaviour, each showing exactly its fault on
/// the wire.
@Suite(.enabled(if: TestCertificates.runnable, "the openssl command is not installed"), .wallClockReference)
struct FakeNTSServerTests {
    /// A running server with `behaviour` and `offset`.
    static func server(
        _ behaviour: FakeNTSServer.Behaviour = .normal, offset: Duration = .zero, host: String = "127.0.0.1"
    ) throws -> (FakeNTSServer, TestCertificates) {
        let certificates = try TestCertificates.require()
        let server = try FakeNTSServer(
            configuration: .init(certificates: certificates, host: host, offset: offset, behaviour: behaviour)
        )
        return (server, certificates)
    }

    /// A completed, correct NTS-KE exchange with `server`.
    static func exchange(_ server: FakeNTSServer, _ certificates: TestCertificates) throws -> (
        NTSTestClient.Exchange, NTSKEResponse
    ) {
        let exchange = try NTSTestClient.keyExchange(with: server, caFile: certificates.caFile)
        return (exchange, try exchange.parsed.get())
    }

    @Test("NTS-KE: ALPN ntske/1 over TLS 1.3, NTPv4, AEAD 15, the NTP port, 8 distinct 100-byte cookies")
    func keyExchange() throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let (exchange, response) = try Self.exchange(server, certificates)
        #expect(exchange.negotiatedProtocol == "ntske/1")
        #expect(exchange.protocolVersion == .tls13)
        #expect(response.nextProtocol == 0)
        #expect(response.aead == 15)
        #expect(response.port == server.ntpPort)
        #expect(response.server == nil)
        #expect(response.warnings.isEmpty)
        #expect(response.cookies.count == 8)
        #expect(Set(response.cookies).count == 8)
        #expect(response.cookies.allSatisfy { $0.count == 100 })
        // The client's keys are not in the cookies in the clear.
        #expect(response.cookies.allSatisfy { !$0.contains(exchange.c2s) })
        #expect(server.waitUntil(timeout: .seconds(2)) { $0.keResponses == 1 })
        let statistics = server.statistics
        #expect(statistics.keHandshakes == 1)
        #expect(statistics.cookiesIssued == 8)
        #expect(statistics.lastRequestedServerName == "localhost")
        #expect(statistics.keFailures == 0)
    }

    @Test(
        "NTP: authenticated reply, UID echoed, one new cookie per cookie and placeholder, offset within physics",
        arguments: [0, 3, 7])
    func authenticatedQuery(placeholders: Int) throws {
        let offset = Duration.milliseconds(2_500)
        let (server, certificates) = try Self.server(offset: offset)
        defer { server.stop() }
        let (exchange, response) = try Self.exchange(server, certificates)
        let query = try NTSTestClient.query(
            server, cookie: response.cookies[0], c2s: exchange.c2s, placeholders: placeholders)
        let (packet, cookies) = try NTSTestClient.verifiedCookies(query.reply, s2c: exchange.s2c)
        #expect(packet.uniqueIdentifier == query.uniqueIdentifier)
        #expect(cookies.count == 1 + placeholders)
        #expect(Set(cookies).count == cookies.count)
        #expect(cookies.allSatisfy { !response.cookies.contains($0) && $0.count == 100 })
        let header = packet.header
        #expect(header.mode == .server)
        #expect(header.version == 4)
        #expect(header.stratum.rawValue == 2)
        #expect(header.leap == .noWarning)
        #expect(header.originTimestamp == query.t1)
        // Causality in the server's frame: T1 + offset ≤ T2 ≤ T3 ≤ T4 + offset (1 µs for rounding).
        let slack = Duration.microseconds(1)
        #expect(header.receiveTimestamp - query.t1 >= offset - slack)
        #expect(header.transmitTimestamp - header.receiveTimestamp >= .zero)
        #expect(query.t4 - header.transmitTimestamp >= .zero - offset - slack)
        // θ = ((T2 − T1) + (T3 − T4)) / 2 is within δ/2 of the true offset.
        let theta = ((header.receiveTimestamp - query.t1) + (header.transmitTimestamp - query.t4)) / 2
        let delta = (query.t4 - query.t1) - (header.transmitTimestamp - header.receiveTimestamp)
        #expect(abs(theta - offset) <= delta / 2 + slack, "θ \(theta), δ \(delta)")
        #expect(delta < .milliseconds(500))
        #expect(server.waitUntil(timeout: .seconds(2)) { $0.authenticatedRequests == 1 })
        let statistics = server.statistics
        #expect(statistics.lastUniqueIdentifier == query.uniqueIdentifier)
        #expect(statistics.lastCookie == response.cookies[0])
        #expect(statistics.cookiesIssued == 8 + 1 + placeholders)
        #expect(statistics.rejectedTotal == 0)
    }

    @Test("NTP: a cookie from a reply works in the next request; a plain request gets a plain reply")
    func cookieChainAndPlain() throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let (exchange, response) = try Self.exchange(server, certificates)
        let first = try NTSTestClient.query(server, cookie: response.cookies[0], c2s: exchange.c2s)
        let fresh = try NTSTestClient.verifiedCookies(first.reply, s2c: exchange.s2c).cookies
        let second = try NTSTestClient.query(server, cookie: try #require(fresh.first), c2s: exchange.c2s)
        #expect(try NTSTestClient.verifiedCookies(second.reply, s2c: exchange.s2c).cookies.count == 1)
        let socket = try UDPSocket(
            connectingTo: try #require(SocketAddress(numericHost: server.host, port: server.ntpPort)))
        defer { socket.close() }
        let nonce = NTPTimestamp(rawValue: 0x0123_4567_89AB_CDEF)
        try socket.send(NTPPacket.clientRequest(nonce: nonce).encoded())
        let plain = try #require(try socket.receive(timeout: .seconds(2), capacity: 1024))
        #expect(plain.count == 48)
        #expect(try NTPPacket(decoding: plain).originTimestamp == nonce)
        #expect(
            server.waitUntil(timeout: .seconds(2)) { $0.plainRequests == 1 && $0.authenticatedRequests == 2 })
        #expect(server.statistics.cookiesPresented == 2 && server.statistics.repeatedCookies == 0)
        // The first cookie again: answered (the fake server does not refuse reuse), and counted.
        _ = try NTSTestClient.query(server, cookie: response.cookies[0], c2s: exchange.c2s)
        #expect(server.waitUntil(timeout: .seconds(2)) { $0.cookiesPresented == 3 })
        #expect(server.statistics.repeatedCookies == 1)
        #expect(server.statistics.presentedCookies.count == 2)
    }

    @Test("NTP: an unknown cookie and a wrong key each get an NTS NAK and are counted by reason")
    func naksForBadRequests() throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let (exchange, response) = try Self.exchange(server, certificates)
        let garbage = try NTSTestClient.query(server, cookie: NTSTestClient.random(100), c2s: exchange.c2s)
        try Self.expectNAK(garbage)
        var forged = response.cookies[0]
        forged[30] ^= 0x80
        try Self.expectNAK(try NTSTestClient.query(server, cookie: forged, c2s: exchange.c2s))
        let wrongKey = try NTSTestClient.query(server, cookie: response.cookies[1], c2s: exchange.s2c)
        try Self.expectNAK(wrongKey)
        #expect(
            server.waitUntil(timeout: .seconds(2)) {
                $0.rejected[.unknownCookie] == 2 && $0.rejected[.badAuthenticator] == 1
            })
        let statistics = server.statistics
        #expect(statistics.authenticatedRequests == 0)
        #expect(statistics.lastUniqueIdentifier == wrongKey.uniqueIdentifier)
        #expect(statistics.lastCookie == response.cookies[1])
    }

    /// Checks that `query` was answered with an NTS NAK: stratum 0, `NTSN`, the request's UID field
    /// and nothing else.
    static func expectNAK(_ query: NTSTestClient.Query, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let header = try NTPPacket(decoding: query.reply)
        #expect(header.stratum.rawValue == 0, sourceLocation: sourceLocation)
        #expect(header.referenceID == NTPPacket.ReferenceID(ascii: "NTSN"), sourceLocation: sourceLocation)
        #expect(header.mode == .server, sourceLocation: sourceLocation)
        #expect(header.originTimestamp == query.t1, sourceLocation: sourceLocation)
        #expect(
            Array(query.reply.dropFirst(48)) == query.uniqueIdentifierField, sourceLocation: sourceLocation)
        Self.expectPacketError(.missingAuthenticator, query.reply, sourceLocation: sourceLocation)
    }

    /// Checks that parsing `reply` as an NTS packet fails with `code`.
    static func expectPacketError(
        _ code: NTSError.Code, _ reply: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            _ = try NTSPacket(parsing: reply)
        } throws: { error in
            (error as? NTSError)?.code == code
        }
    }

    /// A correct exchange, then one query with `behaviour` on the NTP side.
    static func hostileQuery(_ behaviour: FakeNTSServer.Behaviour) throws -> (
        NTSTestClient.Query, NTSTestClient.Exchange, FakeNTSServer
    ) {
        let (server, certificates) = try Self.server()
        let (exchange, response) = try Self.exchange(server, certificates)
        server.update { $0.behaviour = behaviour }
        let query = try NTSTestClient.query(server, cookie: response.cookies[0], c2s: exchange.c2s)
        return (query, exchange, server)
    }

    @Test("hostile NTP: a flipped tag bit fails authentication, and only that bit")
    func badAuthenticator() throws {
        let (query, exchange, server) = try Self.hostileQuery(.badAuthenticator)
        defer { server.stop() }
        let packet = try NTSPacket(parsing: query.reply)
        #expect(packet.uniqueIdentifier == query.uniqueIdentifier)
        #expect(throws: AESSIVError.authenticationFailed) {
            _ = try NTSTestClient.verifiedCookies(query.reply, s2c: exchange.s2c)
        }
        // The tag starts after the field header, the lengths and the 16-byte nonce.
        var repaired = query.reply
        repaired[packet.authenticatorOffset + 8 + 16] ^= 0x01
        #expect(try NTSTestClient.verifiedCookies(repaired, s2c: exchange.s2c).cookies.count == 1)
    }

    @Test("hostile NTP: a wrong Unique Identifier, correctly authenticated")
    func wrongUniqueIdentifier() throws {
        let (query, exchange, server) = try Self.hostileQuery(.wrongUniqueIdentifier)
        defer { server.stop() }
        let (packet, cookies) = try NTSTestClient.verifiedCookies(query.reply, s2c: exchange.s2c)
        #expect(packet.uniqueIdentifier != query.uniqueIdentifier)
        #expect(packet.uniqueIdentifier.count == 32)
        #expect(cookies.count == 1)
    }

    @Test("hostile NTP: no Unique Identifier")
    func missingUniqueIdentifier() throws {
        let (query, _, server) = try Self.hostileQuery(.missingUniqueIdentifier)
        defer { server.stop() }
        Self.expectPacketError(.missingUniqueIdentifier, query.reply)
        #expect(
            NTPExtensionFieldType(rawValue: UInt16(query.reply[48]) << 8 | UInt16(query.reply[49]))
                == .authenticator)
    }

    @Test("hostile NTP: a plain 48-byte reply (downgrade), otherwise correct")
    func noExtensionFields() throws {
        let (query, _, server) = try Self.hostileQuery(.noExtensionFields)
        defer { server.stop() }
        #expect(query.reply.count == 48)
        #expect(try NTPPacket(decoding: query.reply).originTimestamp == query.t1)
        Self.expectPacketError(.noExtensionFields, query.reply)
    }

    @Test("hostile NTP: an NTS NAK for a valid request")
    func nak() throws {
        let (query, _, server) = try Self.hostileQuery(.nak)
        defer { server.stop() }
        try Self.expectNAK(query)
        #expect(query.reply.count == 84)
    }

    @Test("hostile NTP: authenticated, but no new cookies")
    func noNewCookies() throws {
        let (query, exchange, server) = try Self.hostileQuery(.noNewCookies)
        defer { server.stop() }
        let (packet, cookies) = try NTSTestClient.verifiedCookies(query.reply, s2c: exchange.s2c)
        #expect(packet.uniqueIdentifier == query.uniqueIdentifier)
        #expect(cookies.isEmpty)
    }

    @Test("hostile NTP: the first field claims 65532 bytes")
    func oversizedExtensionField() throws {
        let (query, _, server) = try Self.hostileQuery(.oversizedExtensionField)
        defer { server.stop() }
        #expect(query.reply[50] == 0xFF && query.reply[51] == 0xFC)
        #expect(query.reply.count == 228)
        Self.expectPacketError(.truncatedField, query.reply)
    }

    @Test("hostile NTP: the reply cut 8 bytes into its authenticator")
    func truncatedExtensionField() throws {
        let (query, _, server) = try Self.hostileQuery(.truncatedExtensionField)
        defer { server.stop() }
        // Header 48 + UID field 36 + authenticator 144 (nonce 16, tag 16, one 104-byte cookie field), minus 8.
        #expect(query.reply.count == 220)
        #expect(Array(query.reply[48..<84]) == query.uniqueIdentifierField)
        Self.expectPacketError(.truncatedField, query.reply)
    }

    @Test(
        "hostile NTS-KE: each response shows its one fault to a strict parser",
        arguments: [
            (FakeNTSServer.Behaviour.keNoCookies, NTSError.Code.noCookies),
            (.keCriticalUnknownRecord, .unknownCriticalRecord),
            (.keErrorRecord(code: 2), .serverError),
            (.keOversizedResponse, .responseTooLarge),
            (.keTruncatedRecords, .truncated),
        ])
    func hostileKEResponse(behaviour: FakeNTSServer.Behaviour, code: NTSError.Code) throws {
        let (server, certificates) = try Self.server(behaviour)
        defer { server.stop() }
        let exchange = try NTSTestClient.keyExchange(with: server, caFile: certificates.caFile)
        #expect(exchange.negotiatedProtocol == "ntske/1")
        let error = try #require(throws: NTSError.self) { try exchange.parsed.get() }
        #expect(error.code == code, "\(error)")
        switch behaviour {
        case .keErrorRecord:
            #expect(error.serverCode == 2)
            #expect(exchange.bytes == [0x80, 0x02, 0x00, 0x02, 0x00, 0x02, 0x80, 0x00, 0x00, 0x00])
        case .keOversizedResponse:
            #expect(exchange.bytes.count > 70_000)
        case .keTruncatedRecords:
            // Next Protocol, AEAD and Port records (6 bytes each), a cookie header and half a cookie.
            #expect(exchange.bytes.count == 18 + 4 + 50)
        default:
            break
        }
    }

    @Test(
        "NTS-KE requests the server cannot serve get an Error record; an oversized one gets nothing",
        arguments: [
            // AEAD 16 only: bad request (1).
            (
                [
                    0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x80, 0x04, 0x00, 0x02, 0x00, 0x10, 0x80, 0x00, 0x00,
                    0x00,
                ], 1
            ),
            // A critical record of unknown type 0x1234: unrecognized critical record (0).
            ([0x92, 0x34, 0x00, 0x00] + NTSKERequest.encoded(), 0),
            // 5 000 bytes of a non-critical unknown record: past the 4 096-byte cap, no answer.
            ([0x12, 0x34, 0x13, 0x88] + [UInt8](repeating: 0, count: 5_000) + NTSKERequest.encoded(), nil),
        ] as [([UInt8], UInt16?)])
    func badRequests(request: [UInt8], errorCode: UInt16?) throws {
        let (server, certificates) = try Self.server()
        defer { server.stop() }
        let exchange = try NTSTestClient.keyExchange(
            host: server.host, port: server.kePort, caFile: certificates.caFile, request: request)
        if let errorCode {
            #expect(
                exchange.bytes == [0x80, 0x02, 0x00, 0x02, 0x00, UInt8(errorCode), 0x80, 0x00, 0x00, 0x00])
            #expect(server.waitUntil(timeout: .seconds(2)) { $0.keResponses == 1 && $0.cookiesIssued == 0 })
        } else {
            #expect(exchange.bytes.isEmpty)
            #expect(server.waitUntil(timeout: .seconds(2)) { $0.keFailures == 1 && $0.keResponses == 0 })
        }
    }

    @Test("hostile NTS-KE: a Warning record, and a redirection to another host and port")
    func warningAndRedirection() throws {
        let (server, certificates) = try Self.server(.keWarningRecord(code: 7))
        defer { server.stop() }
        #expect(try Self.exchange(server, certificates).1.warnings == [7])
        server.update { $0.behaviour = .keServerNegotiation(server: "127.0.0.1", port: 4123) }
        let redirected = try Self.exchange(server, certificates).1
        #expect(redirected.server == "127.0.0.1")
        #expect(redirected.port == 4123)
        server.update {
            $0.behaviour = .normal
            $0.serverNegotiation = "localhost"
        }
        let named = try Self.exchange(server, certificates).1
        #expect(named.server == "localhost")
        #expect(named.port == server.ntpPort)
    }

    @Test("hostile NTS-KE: TLS 1.2 only fails a TLS 1.3 client, and really speaks TLS 1.2")
    func tls12Only() throws {
        let (server, certificates) = try Self.server(.keTLS12Only)
        defer { server.stop() }
        let error = try #require(throws: TLSError.self) {
            _ = try NTSTestClient.keyExchange(with: server, caFile: certificates.caFile)
        }
        #expect([TLSError.Code.protocolVersion, .handshakeFailed].contains(error.code), "\(error)")
        let lenient = try NTSTestClient.keyExchange(
            with: server, caFile: certificates.caFile, minimumVersion: .tls12)
        #expect(lenient.protocolVersion == .tls12)
        #expect(server.waitUntil(timeout: .seconds(2)) { $0.keFailures == 1 && $0.keHandshakes == 1 })
    }

    @Test("hostile NTS-KE: the handshake finishes without ALPN")
    func noALPN() throws {
        let (server, certificates) = try Self.server(.keNoALPN)
        defer { server.stop() }
        let exchange = try NTSTestClient.keyExchange(with: server, caFile: certificates.caFile)
        #expect(exchange.negotiatedProtocol == nil)
        #expect(exchange.protocolVersion == .tls13)
    }

    @Test(
        "hostile NTS-KE: wrong-name, expired and self-signed certificates fail verification",
        arguments: ["wrong name", "expired", "self-signed"])
    func badCertificates(_ kind: String) throws {
        let certificates = try TestCertificates.require()
        let behaviour: FakeNTSServer.Behaviour =
            switch kind {
            case "wrong name": .wrongNameCertificate(certificates)
            case "expired": .expiredCertificate(certificates)
            default: .selfSignedCertificate(certificates)
            }
        let (server, _) = try Self.server(behaviour)
        defer { server.stop() }
        let error = try #require(throws: TLSError.self) {
            _ = try NTSTestClient.keyExchange(with: server, caFile: certificates.caFile)
        }
        // An expired certificate is refused for its validity period, the others for what they are.
        let expected: TLSError.Code =
            behaviour == .expiredCertificate(certificates)
            ? .certificateNotValidAtCheckedTime : .certificateVerificationFailed
        #expect(error.code == expected, "\(error)")
        // The same client accepts the right certificate: the fault is the certificate alone.
        server.update { $0.behaviour = .normal }
        #expect(try Self.exchange(server, certificates).1.cookies.count == 8)
    }

    @Test(
        "over IPv6 loopback: NTS-KE checked against ::1, NTP on the same address",
        .enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func ipv6() throws {
        let (server, certificates) = try Self.server(host: "::1")
        defer { server.stop() }
        #expect(server.host == "::1")
        let exchange = try NTSTestClient.keyExchange(with: server, name: "::1", caFile: certificates.caFile)
        let response = try exchange.parsed.get()
        let query = try NTSTestClient.query(server, cookie: response.cookies[0], c2s: exchange.c2s)
        #expect(
            try NTSTestClient.verifiedCookies(query.reply, s2c: exchange.s2c).packet.uniqueIdentifier
                == query.uniqueIdentifier)
    }

    @Test("stop() frees both ports, ends a stalled NTS-KE connection, and is idempotent")
    func stop() throws {
        let (server, _) = try Self.server()
        let address = try #require(SocketAddress(numericHost: server.host, port: server.kePort))
        // A client that connects and never starts the handshake: the server waits in it.
        let idle = try TCPConnection(startingConnectionTo: address)
        defer { idle.close() }
        #expect(try idle.waitUntilConnected(timeout: .seconds(2)))
        let clock = ContinuousClock()
        let start = clock.now
        server.stop()
        #expect(clock.now - start < .seconds(1))
        #expect(!server.isRunning)
        server.stop()
        // Both ports can be bound again at once.
        let listener = try TCPListener(binding: address)
        listener.close()
        let socket = try UDPServerSocket(binding: address.withPort(server.ntpPort))
        socket.close()
    }

    @Test("stop() ends an NTS-KE connection waiting for a request after the handshake")
    func stopDuringRequest() throws {
        let (server, certificates) = try Self.server()
        let address = try #require(SocketAddress(numericHost: server.host, port: server.kePort))
        let tcp = try TCPConnection(startingConnectionTo: address)
        #expect(try tcp.waitUntilConnected(timeout: .seconds(2)))
        let client = try TLSConnection.connect(
            over: tcp, serverName: "localhost",
            configuration: TLSClientConfiguration(
                applicationProtocols: [NTSKEConstants.alpn], trustRoots: .caFile(certificates.caFile)),
            timeout: .seconds(5))
        defer { client.close() }
        #expect(server.waitUntil(timeout: .seconds(2)) { $0.keHandshakes == 1 })
        let clock = ContinuousClock()
        let start = clock.now
        server.stop()
        // The server waits up to 5 s for the request; the stop ends that wait at once.
        #expect(clock.now - start < .seconds(1))
        #expect(server.statistics.keFailures == 1)
        // The connection is over: a close_notify or a closed socket, whichever the stop reached first.
        let after = try? client.read(maximum: 1, timeout: .seconds(2))
        #expect(after == nil || after == .endOfStream)
    }

    @Test("the host must be a numeric loopback address")
    func startErrors() throws {
        let certificates = try TestCertificates.require()
        #expect(throws: FakeNTPServer.StartError.self) {
            _ = try FakeNTSServer(configuration: .init(certificates: certificates, host: "localhost"))
        }
        let error = try #require(throws: FakeNTPServer.StartError.self) {
            _ = try FakeNTSServer(configuration: .init(certificates: certificates, host: "192.0.2.1"))
        }
        #expect(error.code == .notLoopback)
    }
}
