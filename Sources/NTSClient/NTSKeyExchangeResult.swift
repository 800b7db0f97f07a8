import NTS
import NetClockPlatform
import NetClockTLS

/// What one NTS-KE exchange (RFC 8915 §4) gave: the keys, the cookies and where to send NTP.
package struct NTSKeyExchangeResult: Sendable {
    /// The NTS-KE server's address the TLS connection went to.
    package var keyExchangeAddress: SocketAddress
    /// The NTP host: the NTPv4 Server Negotiation record's, else the NTS-KE server's address.
    package var ntpHost: String
    /// The NTP port: the NTPv4 Port Negotiation record's, else 123.
    package var ntpPort: UInt16
    /// The AEAD algorithm agreed (15, AES-SIV-CMAC-256).
    package var aead: UInt16
    /// The client-to-server key (requests).
    package var clientToServerKey: [UInt8]
    /// The server-to-client key (replies).
    package var serverToClientKey: [UInt8]
    /// The cookies handed over, in order.
    package var cookies: [[UInt8]]
    /// The Warning codes the server sent.
    package var warnings: [UInt16]
    /// The time the server's certificates were checked against.
    package var certificateTime: CertificateTime = .wallClock
    /// The validity periods of the verified chain, leaf first.
    package var certificateChain: [CertificateValidity] = []
}
