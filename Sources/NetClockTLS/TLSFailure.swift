import COpenSSL

/// Turns a failed OpenSSL operation into a ``TLSError`` with the right code.
enum TLSFailure {
    /// OpenSSL's reasons (`SSL_R_…`) that mean the two sides share no protocol version.
    private static let versionReasons: Set<Int32> = [
        SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE,
        SSL_R_WRONG_SSL_VERSION, SSL_R_VERSION_TOO_LOW, SSL_R_VERSION_TOO_HIGH,
    ]

    /// The error for `operation` that failed on `ssl`, given the errors OpenSSL queued.
    static func classify(
        ssl: OpaquePointer, operation: String, isServer: Bool, queued: [OpenSSLErrorQueue.Entry]
    )
        -> TLSError
    {
        let details = queued.map(\.text).joined(separator: "; ")
        let explained = details.isEmpty ? "" : " (\(details))"
        if !isServer, operation == "handshake" {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let text =
                    X509_verify_cert_error_string(verify).map { String(cString: $0) } ?? "error \(verify)"
                // Not yet valid or expired: only as wrong as the clock it was checked against.
                let isTime = [X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CERT_HAS_EXPIRED].contains(
                    Int32(verify))
                return TLSError(
                    isTime ? .certificateNotValidAtCheckedTime : .certificateVerificationFailed,
                    "certificate verify failed: \(text)")
            }
        }
        if queued.contains(where: { versionReasons.contains($0.reason) }) {
            return TLSError(.protocolVersion, "no protocol version in common\(explained)")
        }
        if operation == "handshake" {
            return TLSError(.handshakeFailed, "the TLS handshake failed\(explained)")
        }
        return TLSError(.connectionFailed, "TLS \(operation) failed\(explained)")
    }
}
