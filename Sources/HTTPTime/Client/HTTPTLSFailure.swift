import NetClockTLS

/// How a failed TLS handshake of an `https://` exchange is reported: certificate refusals as
/// ``HTTPTimeError/Code/certificateRejected``, a handshake that did not finish in time as
/// ``HTTPTimeError/Code/timeout``, a broken socket as ``HTTPTimeError/Code/transport``, and every
/// other TLS failure as ``HTTPTimeError/Code/tls``.
enum HTTPTLSFailure {
    /// The exchange's end for the handshake error `error` with `peer`.
    static func stop(for error: TLSError, peer: String, timeout: Duration) -> HTTPExchangeRun.Stop {
        let code: HTTPTimeError.Code
        let reason: String
        switch error.code {
        case .certificateVerificationFailed, .certificateNotValidAtCheckedTime:
            code = .certificateRejected
            reason = "the certificate of \(peer) was refused: \(error.reason)"
        case .timedOut:
            code = .timeout
            reason = "the TLS handshake with \(peer) did not finish within \(timeout.formattedSeconds)"
        case .transport:
            code = .transport
            reason = "the TLS handshake with \(peer) failed: \(error.reason)"
        case .configuration:
            code = .tls
            reason = "TLS cannot be set up: \(error.reason)"
        default:
            code = .tls
            reason = "the TLS handshake with \(peer) failed: \(error)"
        }
        return HTTPExchangeRun.Stop(result: .failed(code, reason))
    }
}
