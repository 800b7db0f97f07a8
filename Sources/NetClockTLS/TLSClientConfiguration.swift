/// How a client connection is set up: the lowest protocol version it accepts, the application
/// protocols (ALPN) it offers, and whom it trusts.
package struct TLSClientConfiguration: Sendable {
    /// The certificates a client accepts as issuers of the server's certificate chain.
    package enum TrustRoots: Hashable, Sendable {
        /// The system's trust store (OpenSSL's default verify paths).
        case system
        /// Only the CA certificates in this PEM file.
        case caFile(String)
    }

    /// The lowest version the client accepts (TLS 1.3 by default; TLS 1.2 for HTTPS).
    package var minimumVersion: TLSProtocolVersion
    /// The application protocols offered, most preferred first (each 1 to 255 bytes of UTF-8);
    /// empty to offer none. Whether a connection that agreed on none is acceptable is the caller's
    /// decision (see ``TLSConnection/negotiatedProtocol``).
    package var applicationProtocols: [String]
    /// Whom the client trusts.
    package var trustRoots: TrustRoots
    /// Against which time the server's certificates are checked (the wall clock by default).
    package var certificateTime: CertificateTime = .wallClock

    /// A configuration; by default TLS 1.3, no ALPN, the system's trust store.
    package init(
        minimumVersion: TLSProtocolVersion = .tls13, applicationProtocols: [String] = [],
        trustRoots: TrustRoots = .system
    ) {
        self.minimumVersion = minimumVersion
        self.applicationProtocols = applicationProtocols
        self.trustRoots = trustRoots
    }
}
