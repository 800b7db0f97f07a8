import NetClockPlatform

/// A TLS failure: a stable ``TLSErrorCode`` that callers and tests compare, and a readable reason
/// (with OpenSSL's own explanation where it gave one). Two errors are equal when their codes are.
package typealias TLSError = CodedError<TLSErrorCode>

/// What kind of TLS failure a ``TLSError`` is. New codes may be added.
package enum TLSErrorCode: String, ErrorCode, CaseIterable {
    /// The configuration cannot be used: an unreadable CA, certificate or key file, a key that
    /// does not match its certificate, an invalid ALPN name or server name.
    case configuration = "configuration"
    /// The TLS handshake failed for a reason other than the ones below.
    case handshakeFailed = "handshake_failed"
    /// The peer's certificate did not verify (unknown issuer, wrong name or address…); the reason
    /// carries OpenSSL's verify result text.
    case certificateVerificationFailed = "certificate_verification_failed"
    /// The peer's chain verified except for its validity period: a certificate is not yet valid
    /// or has expired at the time it was checked against (``CertificateTime``), which may be the
    /// local clock's fault rather than the server's.
    case certificateNotValidAtCheckedTime = "certificate_not_valid_at_checked_time"
    /// The two sides share no protocol version (for example a TLS 1.2-only server and a client
    /// that requires TLS 1.3).
    case protocolVersion = "protocol_version"
    /// The deadline passed before the handshake, read or write finished.
    case timedOut = "timed_out"
    /// The peer closed the connection: the TCP stream ended (without a TLS close_notify where
    /// one was due), or the peer's close_notify arrived during the handshake or before a write,
    /// or a read came after the close_notify was already reported; or the connection was
    /// already closed locally.
    case closed = "closed"
    /// The socket below failed (reset, unreachable, …).
    case transport = "transport"
    /// An established connection failed: a bad record, an alert from the peer.
    case connectionFailed = "connection_failed"
    /// Exporting keying material failed (no handshake yet, an invalid length).
    case keyExport = "key_export"
    /// The caller gave up on the connection (its task was cancelled, its exchange timed out
    /// from outside, or its sync had enough sources) before the operation finished.
    case abandoned = "abandoned"
}
