/// How a server connection is set up: its certificate and key, the application protocols (ALPN)
/// it selects from, and the protocol versions it accepts.
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
}
