import NTS
import NetClockPlatform
import NetClockTLS
import SNTP

/// Why an NTS source gave no authenticated time: the key exchange failed (TLS, certificate, ALPN,
/// a refused or malformed NTS-KE response) or it could not be reached. A stable ``code`` for
/// programs and tests, a ``reason`` for people.
package struct NTSFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure, e.g. `nts_ke_tls_certificate_verification_failed`,
    /// `nts_ke_tls_protocol_version`, `nts_ke_no_alpn`,
    /// `nts_ke_server_error`, `nts_ke_timeout`.
    package let code: String
    /// What went wrong, for people.
    package let reason: String

    /// Creates a failure.
    package init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// A TLS failure during NTS-KE: the code carries the TLS one (`nts_ke_tls_<code>`).
    package init(_ error: TLSError, server: String) {
        self.init(code: "nts_ke_tls_\(error.code)", reason: "NTS-KE with \(server): TLS \(error.reason)")
    }

    /// A refused NTS-KE response: the code carries the parser's (`nts_ke_<code>`).
    package init(_ error: NTSError, server: String) {
        self.init(code: "nts_ke_\(error.code.rawValue)", reason: "NTS-KE with \(server): \(error.reason)")
    }

    /// The NTS-KE server could not be reached.
    package init(_ error: TransportError, server: String) {
        switch error {
        case .resolutionFailed, .noAddresses:
            self.init(code: "nts_ke_resolution_failed", reason: "NTS-KE with \(server): \(error.description)")
        case .connectionRefused(let address):
            self.init(
                code: "nts_ke_refused",
                reason:
                    "NTS-KE with \(server): connection refused by \(address) (nothing listens on that TCP port)"
            )
        case .timedOut:
            self.init(code: "nts_ke_timeout", reason: "NTS-KE with \(server): \(error.description)")
        case .systemCall:
            self.init(code: "nts_ke_transport", reason: "NTS-KE with \(server): \(error.description)")
        }
    }

    /// The deadline passed before the key exchange finished.
    package static func timedOut(_ server: String, after limit: Duration) -> NTSFailure {
        NTSFailure(
            code: "nts_ke_timeout",
            reason: "NTS-KE with \(server) did not finish within \(limit.formattedSeconds)")
    }

    /// Etiquette kept the server's NTP address silent (a Kiss-o'-Death DENY or RSTR, or a RATE
    /// back-off): code `skipped`, as a plain source's status says.
    package init(skipped admission: SourceEtiquette.Admission) {
        self.init(code: "skipped", reason: admission.description)
    }

    /// The query was cancelled.
    package static func cancelled(_ server: String) -> NTSFailure {
        NTSFailure(code: "cancelled", reason: "the NTS query of \(server) was cancelled")
    }

    /// `reason`.
    package var description: String { reason }
}
