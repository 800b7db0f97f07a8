/// A TLS failure: a stable ``code`` that callers and tests compare, and a readable ``reason``
/// (with OpenSSL's own explanation where it gave one).
///
/// Two errors are equal when their codes are equal, whatever their reasons say.
package struct TLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; do not `switch` exhaustively.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The codes, with their stable names.
        private enum Raw: String, Hashable, Sendable {
            case configuration = "configuration"
            case handshakeFailed = "handshake_failed"
            case certificateVerificationFailed = "certificate_verification_failed"
            case protocolVersion = "protocol_version"
            case timedOut = "timed_out"
            case closed = "closed"
            case transport = "transport"
            case connectionFailed = "connection_failed"
            case keyExport = "key_export"
            case abandoned = "abandoned"
        }

        /// Which code this is.
        private let raw: Raw

        /// The code `raw`.
        private init(_ raw: Raw) {
            self.raw = raw
        }

        /// The configuration cannot be used: an unreadable CA, certificate or key file, a key that
        /// does not match its certificate, an invalid ALPN name or server name.
        package static let configuration = Code(.configuration)
        /// The TLS handshake failed for a reason other than the ones below.
        package static let handshakeFailed = Code(.handshakeFailed)
        /// The peer's certificate did not verify (unknown issuer, wrong name or address, expired…);
        /// the reason carries OpenSSL's verify result text.
        package static let certificateVerificationFailed = Code(.certificateVerificationFailed)
        /// The two sides share no protocol version (for example a TLS 1.2-only server and a client
        /// that requires TLS 1.3).
        package static let protocolVersion = Code(.protocolVersion)
        /// The deadline passed before the handshake, read or write finished.
        package static let timedOut = Code(.timedOut)
        /// The peer closed the connection: the TCP stream ended (without a TLS close_notify where
        /// one was due), or the peer's close_notify arrived during the handshake or before a write,
        /// or a read came after the close_notify was already reported; or the connection was
        /// already closed locally.
        package static let closed = Code(.closed)
        /// The socket below failed (reset, unreachable, …).
        package static let transport = Code(.transport)
        /// An established connection failed: a bad record, an alert from the peer.
        package static let connectionFailed = Code(.connectionFailed)
        /// Exporting keying material failed (no handshake yet, an invalid length).
        package static let keyExport = Code(.keyExport)
        /// The caller gave up on the connection (its task was cancelled, its exchange timed out
        /// from outside, or its sync had enough sources) before the operation finished.
        package static let abandoned = Code(.abandoned)

        /// The code's stable name, such as `certificate_verification_failed`.
        package var description: String { raw.rawValue }
    }

    /// What kind of failure this is.
    package let code: Code
    /// A readable explanation.
    package let reason: String

    /// An error with `code`, explained by `reason`.
    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    package var description: String { "\(code): \(reason)" }

    /// Equal when the codes are equal.
    package static func == (lhs: TLSError, rhs: TLSError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistent with `==`.
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
