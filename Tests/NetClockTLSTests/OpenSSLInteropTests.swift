import LoopbackServers
import NetClockPlatform
import NetClockTLS
import Testing

/// The client side of the seam against `openssl s_server`, a TLS implementation we did not write.
@Suite(.enabled(if: TestCertificates.runnable, "the openssl command is not installed"), .serialized)
struct OpenSSLInteropTests {
    static let label = "EXPORTER-network-time-security"

    /// The `openssl` command (a recorded failure when CI requires it and it is missing).
    static func openssl() throws -> String {
        try #require(
            TestCertificates.opensslPath, "openssl is not installed, and NETCLOCK_REQUIRE_PEERS=1 requires it"
        )
    }

    /// Connects to the s_server on `port` as `localhost`, trusting the test CA.
    static func connect(
        port: UInt16, certificates: TestCertificates, minimumVersion: TLSProtocolVersion = .tls13
    )
        throws -> TLSConnection
    {
        let tcp = try TCPConnection(startingConnectionTo: .loopback(.ipv4, port: port))
        #expect(try tcp.waitUntilConnected(timeout: .seconds(2)))
        let configuration = TLSClientConfiguration(
            minimumVersion: minimumVersion, applicationProtocols: ["ntske/1"],
            trustRoots: .caFile(certificates.caFile))
        return try TLSConnection.connect(
            over: tcp, serverName: "localhost", configuration: configuration, timeout: .seconds(5))
    }

    @Test("s_server -tls1_3 -alpn ntske/1: ALPN agreed, the same exporter keys, data delivered")
    func agreesWithSServer() throws {
        let certificates = try TestCertificates.require()
        let server = try OpenSSLServerProcess(
            openssl: try Self.openssl(), certificates: certificates,
            arguments: ["-tls1_3", "-alpn", "ntske/1", "-keymatexport", Self.label, "-keymatexportlen", "32"])
        var exported: [UInt8] = []
        do {
            let client = try Self.connect(port: server.port, certificates: certificates)
            #expect(client.negotiatedProtocol == "ntske/1")
            #expect(client.protocolVersion == .tls13)
            exported = try client.exportKeyingMaterial(label: Self.label, context: nil, length: 32)
            try client.write(Array("netclock-interop\n".utf8), timeout: .seconds(5))
            client.close()
        } catch {
            Issue.record("client: \(error); s_server printed: \(server.finish())")
            return
        }
        let printed = server.finish()
        #expect(printed.contains("ALPN protocols selected: ntske/1"), "\(printed)")
        #expect(printed.contains("netclock-interop"), "\(printed)")
        let hex = exported.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(OpenSSLServerProcess.keyingMaterial(in: printed) == hex, "\(printed)")
    }

    @Test("s_server -tls1_2 against a client requiring TLS 1.3: protocol version error")
    func refusesTLS12Server() throws {
        let certificates = try TestCertificates.require()
        let server = try OpenSSLServerProcess(
            openssl: try Self.openssl(), certificates: certificates,
            arguments: ["-tls1_2", "-alpn", "ntske/1"])
        let error = #expect(throws: TLSError.self) {
            try Self.connect(port: server.port, certificates: certificates)
        }
        let printed = server.finish()
        #expect(error?.code == .protocolVersion, "\(String(describing: error)); s_server printed: \(printed)")
    }
}
