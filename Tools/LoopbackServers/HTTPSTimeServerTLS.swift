import NetClockTLS
import NetClockTestSupport

/// The TLS side of an HTTPS ``HTTPTimeServer``: which certificate it presents and the protocol
/// versions it accepts. The handshake runs over ``AcceptedByteStream`` with
/// ``TLSConnection/accept(over:configuration:timeout:)``, the same TLS layer as the clients'.
package struct HTTPSTimeServerTLS: Hashable, Sendable {
    /// Which of the ``TestCertificates`` the server presents.
    package enum Certificate: String, Hashable, Sendable, CaseIterable {
        /// Issued by the test CA for `localhost`, 127.0.0.1 and ::1: a client trusting the CA
        /// accepts it.
        case valid
        /// Self-signed for the same names: refused (`self-signed certificate`).
        case selfSigned
        /// Issued by the test CA, but expired: refused (`certificate has expired`).
        case expired
        /// Issued by the test CA for `wrong.example` only: refused (`Hostname mismatch`, or
        /// `IP address mismatch` for an address).
        case wrongName
    }

    /// The PEM certificate chain presented.
    package var certificateChainFile: String
    /// Its private key.
    package var privateKeyFile: String
    /// The lowest version accepted (TLS 1.2: the HTTPS client accepts both).
    package var minimumVersion: TLSProtocolVersion
    /// The highest version accepted; nil for the highest OpenSSL supports (TLS 1.3).
    package var maximumVersion: TLSProtocolVersion?
    /// How long the handshake may take before the server gives up on the connection.
    package var handshakeTimeout: Duration

    /// Serves `certificate` of `certificates`, TLS 1.2 to `maximumVersion`.
    package init(
        _ certificates: TestCertificates, certificate: Certificate = .valid,
        maximumVersion: TLSProtocolVersion? = nil
    ) {
        switch certificate {
        case .valid:
            (certificateChainFile, privateKeyFile) = (certificates.serverCertificate, certificates.serverKey)
        case .selfSigned:
            (certificateChainFile, privateKeyFile) = (
                certificates.selfSignedCertificate, certificates.selfSignedKey
            )
        case .expired:
            (certificateChainFile, privateKeyFile) = (certificates.expiredCertificate, certificates.serverKey)
        case .wrongName:
            (certificateChainFile, privateKeyFile) = (
                certificates.wrongNameCertificate, certificates.serverKey
            )
        }
        self.minimumVersion = .tls12
        self.maximumVersion = maximumVersion
        self.handshakeTimeout = .seconds(5)
    }

    /// The TLS layer's server configuration (no ALPN: HTTP/1.1 is the default).
    var serverConfiguration: TLSServerConfiguration {
        TLSServerConfiguration(
            certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile,
            minimumVersion: minimumVersion, maximumVersion: maximumVersion)
    }
}
