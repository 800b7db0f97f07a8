import COpenSSL
import NetClockPlatform
import NetClockTLS

/// How a loopback test server's TLS connections are set up: its certificate and key, the
/// application protocols (ALPN) it selects from, and the protocol versions it accepts.
///
/// The server side of TLS lives here, with the test servers, rather than in NetClockTLS: this type
/// makes the `SSL_CTX` (``makeContext()``), and
/// ``TLSConnection/accept(over:configuration:timeout:isAbandoned:)`` runs NetClockTLS's one engine
/// over it in accept state.
package struct TLSServerConfiguration: Sendable {
    /// A PEM file with the server's certificate, followed by any intermediate certificates.
    package var certificateChainFile: String
    /// A PEM file with the certificate's private key.
    package var privateKeyFile: String
    /// The application protocols the server selects from, most preferred first; empty to agree on
    /// none whatever the client offers (the handshake then finishes without ALPN).
    package var applicationProtocols: [String]
    /// The lowest version accepted (TLS 1.3 by default).
    package var minimumVersion: TLSProtocolVersion
    /// The highest version accepted; nil for the highest OpenSSL supports.
    package var maximumVersion: TLSProtocolVersion?

    /// A configuration serving `certificateChainFile` with `privateKeyFile`.
    package init(
        certificateChainFile: String, privateKeyFile: String, applicationProtocols: [String] = [],
        minimumVersion: TLSProtocolVersion = .tls13, maximumVersion: TLSProtocolVersion? = nil
    ) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.applicationProtocols = applicationProtocols
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
    }

    /// A server context: certificate chain and key, versions, ALPN selection (none when the list is
    /// empty), and no session tickets (nothing is resumed).
    /// - Throws: ``TLSError/Code/configuration`` for an unreadable or mismatched certificate or
    ///   key, or an invalid ALPN name.
    func makeContext() throws(TLSError) -> TLSContext {
        let alpn = try ALPNProtocolList(applicationProtocols)
        let selection = alpn.wire.isEmpty ? nil : ALPNSelection(alpn)
        let context = try TLSContext(method: TLS_server_method(), keepingAlive: selection)
        try context.setVersions(minimum: minimumVersion, maximum: maximumVersion)
        guard SSL_CTX_use_certificate_chain_file(context.pointer, certificateChainFile) == 1 else {
            throw TLSError(
                .configuration,
                OpenSSLErrorQueue.reason(or: "cannot load certificate chain \(certificateChainFile)"))
        }
        guard SSL_CTX_use_PrivateKey_file(context.pointer, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "cannot load private key \(privateKeyFile)"))
        }
        guard SSL_CTX_check_private_key(context.pointer) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "the private key does not match the certificate")
            )
        }
        guard SSL_CTX_set_num_tickets(context.pointer, 0) == 1 else {
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_CTX_set_num_tickets failed"))
        }
        selection?.install(on: context)
        return context
    }
}

extension TLSConnection {
    /// Runs a server handshake over `transport` with `configuration` and returns the connection;
    /// `isAbandoned` as for a client's connection.
    /// - Throws: ``TLSError`` with code `configuration`, `protocolVersion`, `handshakeFailed`,
    ///   `timedOut` (after `timeout`), `closed`, `abandoned` or `transport`. The transport is
    ///   closed when the handshake fails.
    package static func accept(
        over transport: any ByteStream<TransportError>, configuration: TLSServerConfiguration,
        timeout: Duration,
        isAbandoned: @escaping () -> Bool = { false }
    ) throws(TLSError) -> TLSConnection {
        let context: TLSContext
        do {
            context = try configuration.makeContext()
        } catch {
            transport.close()
            throw error
        }
        return try serverHandshake(
            over: transport, context: context, timeout: timeout, isAbandoned: isAbandoned)
    }

    /// On a server, the host name the client asked for (SNI); nil when it sent none (as for an IP
    /// address) and on a client.
    package var requestedServerName: String? {
        guard SSL_is_server(ssl) == 1, let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else {
            return nil
        }
        return String(cString: name)
    }
}
