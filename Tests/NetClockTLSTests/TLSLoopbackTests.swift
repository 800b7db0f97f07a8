import NetClockPlatform
import LoopbackServers
import NetClockTestSupport
import Testing

@testable import NetClockTLS

/// The TLS seam against itself on loopback: the server side of ``TLSConnection`` on one thread,
/// the client side in the test, certificates made by the `openssl` command.
@Suite(.enabled(if: TestCertificates.runnable, "the openssl command is not installed"), .serialized)
struct TLSLoopbackTests {
    /// NTS's exporter label and client-to-server context (RFC 8915 §5.1, AEAD 15).
    static let label = "EXPORTER-network-time-security"
    static let c2sContext: [UInt8] = [0x00, 0x00, 0x00, 0x0f, 0x00]

    /// A server configuration with the test CA's certificate.
    static func serverConfiguration(
        _ certificates: TestCertificates, alpn: [String] = ["ntske/1"],
        maximumVersion: TLSProtocolVersion? = nil,
        minimumVersion: TLSProtocolVersion = .tls13
    ) -> TLSServerConfiguration {
        TLSServerConfiguration(
            certificateChainFile: certificates.serverCertificate, privateKeyFile: certificates.serverKey,
            applicationProtocols: alpn, minimumVersion: minimumVersion, maximumVersion: maximumVersion)
    }

    /// Connects a client to `server` over TCP and runs the handshake.
    static func connect(
        to server: OneConnectionServer, name: String, caFile: String, alpn: [String] = ["ntske/1"],
        minimumVersion: TLSProtocolVersion = .tls13, timeout: Duration = .seconds(5)
    ) throws -> TLSConnection {
        let tcp = try TCPConnection(startingConnectionTo: server.address)
        #expect(try tcp.waitUntilConnected(timeout: .seconds(2)))
        let configuration = TLSClientConfiguration(
            minimumVersion: minimumVersion, applicationProtocols: alpn, trustRoots: .caFile(caFile))
        return try TLSConnection.connect(
            over: tcp, serverName: name, configuration: configuration, timeout: timeout)
    }

    @Test(
        "handshake with ALPN ntske/1, SNI for names, equal exporter keys, data both ways",
        arguments: ["localhost", "127.0.0.1"])
    func handshake(_ name: String) throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(Self.serverConfiguration(certificates), label: Self.label, context: Self.c2sContext))
        let client = try Self.connect(to: server, name: name, caFile: certificates.caFile)
        #expect(client.negotiatedProtocol == "ntske/1")
        #expect(client.protocolVersion == .tls13)
        let key = try client.exportKeyingMaterial(label: Self.label, context: Self.c2sContext, length: 32)
        let otherContext = try client.exportKeyingMaterial(
            label: Self.label, context: [0x00, 0x00, 0x00, 0x0f, 0x01], length: 32)
        #expect(key != otherContext)
        try client.write([0x80, 0x01, 0x00, 0x02, 0x00, 0x00], timeout: .seconds(5))
        let reply = try client.read(maximum: 100, timeout: .seconds(5))
        #expect(reply == .bytes([0x80, 0x01, 0x00, 0x02, 0x00, 0x00]))
        client.close()
        let outcome = server.finish()
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.negotiatedProtocol == "ntske/1")
        #expect(outcome.exported == key)
        // SNI carries a name, never an address (RFC 6066 §3).
        #expect(outcome.requestedServerName == (name == "localhost" ? "localhost" : nil))
        #expect(client.requestedServerName == nil)
        #expect(throws: TLSError(.closed, "")) { try client.read(maximum: 1, timeout: .seconds(1)) }
    }

    @Test(
        "over IPv6 loopback, checked against the address ::1",
        .enabled(
            if: LoopbackEnvironment.ipv6LoopbackAvailable,
            Comment(rawValue: LoopbackEnvironment.ipv6LoopbackUnavailableReason)))
    func handshakeIPv6() throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(Self.serverConfiguration(certificates), label: Self.label, context: Self.c2sContext),
            family: .ipv6)
        let client = try Self.connect(to: server, name: "::1", caFile: certificates.caFile)
        #expect(client.negotiatedProtocol == "ntske/1")
        try client.write([1], timeout: .seconds(5))
        _ = try client.read(maximum: 10, timeout: .seconds(5))
        client.close()
        #expect(server.finish().error == nil)
    }

    @Test(
        "a name or address the certificate does not carry fails verification",
        arguments: [
            "example.com", "127.0.0.2",
        ])
    func wrongName(_ name: String) throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(Self.serverConfiguration(certificates), label: Self.label, context: Self.c2sContext))
        let error = #expect(throws: TLSError.self) {
            try Self.connect(to: server, name: name, caFile: certificates.caFile)
        }
        #expect(error?.code == .certificateVerificationFailed, "\(String(describing: error))")
        #expect(error?.reason.contains("mismatch") == true, "\(String(describing: error))")
        _ = server.finish()
    }

    @Test("a self-signed certificate the client does not trust fails verification")
    func selfSigned() throws {
        let certificates = try TestCertificates.require()
        var configuration = Self.serverConfiguration(certificates)
        configuration.certificateChainFile = certificates.selfSignedCertificate
        configuration.privateKeyFile = certificates.selfSignedKey
        let server = try OneConnectionServer(.tls(configuration, label: Self.label, context: Self.c2sContext))
        let error = #expect(throws: TLSError.self) {
            try Self.connect(to: server, name: "localhost", caFile: certificates.caFile)
        }
        #expect(error?.code == .certificateVerificationFailed, "\(String(describing: error))")
        #expect(error?.reason.contains("self-signed") == true, "\(String(describing: error))")
        _ = server.finish()
    }

    @Test("the system trust store does not know the test CA")
    func systemTrustStore() throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(Self.serverConfiguration(certificates), label: Self.label, context: Self.c2sContext))
        let tcp = try TCPConnection(startingConnectionTo: server.address)
        #expect(try tcp.waitUntilConnected(timeout: .seconds(2)))
        let error = #expect(throws: TLSError.self) {
            try TLSConnection.connect(
                over: tcp, serverName: "localhost",
                configuration: TLSClientConfiguration(applicationProtocols: ["ntske/1"]),
                timeout: .seconds(5))
        }
        #expect(error?.code == .certificateVerificationFailed, "\(String(describing: error))")
        _ = server.finish()
    }

    @Test(
        "a server that agrees on no ALPN protocol: the handshake finishes, nothing negotiated",
        arguments: [
            [String](), ["http/1.1"],
        ])
    func noALPN(_ serverProtocols: [String]) throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(
                Self.serverConfiguration(certificates, alpn: serverProtocols), label: Self.label, context: [])
        )
        let client = try Self.connect(to: server, name: "localhost", caFile: certificates.caFile)
        #expect(client.negotiatedProtocol == nil)
        client.close()
        _ = server.finish()
    }

    @Test("a TLS 1.2-only server and a client requiring TLS 1.3: protocol version error")
    func versionMismatch() throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(
                Self.serverConfiguration(certificates, maximumVersion: .tls12, minimumVersion: .tls12),
                label: Self.label, context: []))
        let error = #expect(throws: TLSError.self) {
            try Self.connect(to: server, name: "localhost", caFile: certificates.caFile)
        }
        #expect(error?.code == .protocolVersion, "\(String(describing: error))")
        #expect(server.finish().error?.code == .protocolVersion)
    }

    @Test("a TLS 1.2-only server and a client accepting TLS 1.2: TLS 1.2 with ALPN")
    func tls12Allowed() throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(
                Self.serverConfiguration(certificates, maximumVersion: .tls12, minimumVersion: .tls12),
                label: Self.label, context: Self.c2sContext))
        let client = try Self.connect(
            to: server, name: "localhost", caFile: certificates.caFile, minimumVersion: .tls12)
        #expect(client.protocolVersion == .tls12)
        #expect(client.negotiatedProtocol == "ntske/1")
        let key = try client.exportKeyingMaterial(label: Self.label, context: Self.c2sContext, length: 32)
        try client.write([7], timeout: .seconds(5))
        _ = try client.read(maximum: 1, timeout: .seconds(5))
        client.close()
        #expect(server.finish().exported == key)
    }

    @Test("a read with nothing to read times out within its deadline, and the connection goes on")
    func readTimeout() throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tls(Self.serverConfiguration(certificates), label: Self.label, context: Self.c2sContext))
        let client = try Self.connect(to: server, name: "localhost", caFile: certificates.caFile)
        let started = ContinuousClock.now
        #expect(throws: TLSError(.timedOut, "")) { try client.read(maximum: 10, timeout: .milliseconds(200)) }
        let elapsed = ContinuousClock.now - started
        // Slack: poll rounds up to whole milliseconds, and two shared cores may delay the wake-up.
        #expect(elapsed >= .milliseconds(200) && elapsed < .milliseconds(1_200), "\(elapsed)")
        try client.write([42], timeout: .seconds(5))
        #expect(try client.read(maximum: 10, timeout: .seconds(5)) == .bytes([42]))
        client.close()
        #expect(server.finish().error == nil)
    }

    @Test(
        "the server's close_notify ends the stream; a socket closed without one is an error",
        arguments: [
            true, false,
        ])
    func serverCloses(_ notifying: Bool) throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(
            .tlsThenClose(Self.serverConfiguration(certificates), notifying: notifying))
        let client = try Self.connect(to: server, name: "localhost", caFile: certificates.caFile)
        if notifying {
            #expect(try client.read(maximum: 10, timeout: .seconds(5)) == .endOfStream)
        } else {
            let error = #expect(throws: TLSError.self) { try client.read(maximum: 10, timeout: .seconds(5)) }
            #expect(
                error?.code == .closed && error?.reason.contains("close_notify") == true,
                "\(String(describing: error))")
        }
        client.close()
        #expect(server.finish().error == nil)
    }

    @Test("a server that never answers: timed out within the deadline")
    func stalledHandshake() throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(.stall)
        let started = ContinuousClock.now
        let error = #expect(throws: TLSError.self) {
            try Self.connect(
                to: server, name: "localhost", caFile: certificates.caFile, timeout: .milliseconds(300))
        }
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        // Slack: poll rounds up to whole milliseconds, and two shared cores may delay the wake-up.
        #expect(elapsed >= .milliseconds(300) && elapsed < .milliseconds(1_300), "\(elapsed)")
        _ = server.finish()
    }

    @Test("a server that closes in the middle of the handshake: closed")
    func closedMidHandshake() throws {
        let certificates = try TestCertificates.require()
        let server = try OneConnectionServer(.closeAfterFirstBytes)
        let error = #expect(throws: TLSError.self) {
            try Self.connect(to: server, name: "localhost", caFile: certificates.caFile)
        }
        #expect(error?.code == .closed, "\(String(describing: error))")
        #expect(server.finish().received.first == 0x16, "a TLS handshake record came first")
    }

    @Test("configuration errors: a missing CA file, a missing key, an empty ALPN name, an empty server name")
    func configurationErrors() throws {
        let certificates = try TestCertificates.require()
        let missing = certificates.directory + "/missing.pem"
        for configuration in [
            TLSClientConfiguration(trustRoots: .caFile(missing)),
            TLSClientConfiguration(applicationProtocols: [""]),
            TLSClientConfiguration(applicationProtocols: [String(repeating: "x", count: 256)]),
        ] {
            let server = try OneConnectionServer(.stall)
            let tcp = try TCPConnection(startingConnectionTo: server.address)
            #expect(try tcp.waitUntilConnected(timeout: .seconds(2)))
            #expect(throws: TLSError(.configuration, "")) {
                try TLSConnection.connect(
                    over: tcp, serverName: "localhost", configuration: configuration, timeout: .seconds(1))
            }
            tcp.close()
            _ = server.finish()
        }
        let server = try OneConnectionServer(.stall)
        let tcp = try TCPConnection(startingConnectionTo: server.address)
        #expect(throws: TLSError(.configuration, "")) {
            try TLSConnection.connect(
                over: tcp, serverName: "", configuration: TLSClientConfiguration(), timeout: .seconds(1))
        }
        tcp.close()
        _ = server.finish()
        var bad = Self.serverConfiguration(certificates)
        bad.privateKeyFile = certificates.selfSignedKey
        let listener = try OneConnectionServer(.tls(bad, label: Self.label, context: []))
        _ = try? Self.connect(
            to: listener, name: "localhost", caFile: certificates.caFile, timeout: .seconds(2))
        #expect(listener.finish().error?.code == .configuration, "a key that does not match the certificate")
    }
}
