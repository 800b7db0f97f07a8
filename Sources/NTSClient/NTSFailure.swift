import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// Why an NTS source gave no authenticated time: the key exchange failed (TLS, certificate, ALPN,
/// a refused or malformed NTS-KE response) or it could not be reached. A stable
/// ``NTSFailureCode`` for programs and tests, a reason for people.
package typealias NTSFailure = CodedError<NTSFailureCode>

/// What kind of failure an ``NTSFailure`` is, e.g. `nts_ke_tls_certificate_verification_failed`,
/// `nts_ke_tls_protocol_version`, `nts_ke_no_alpn`, `nts_ke_server_error`, `nts_ke_timeout`: an
/// open set, since the TLS and NTS-KE codes are carried inside it.
package struct NTSFailureCode: ErrorCode {
    /// The identifier.
    package let rawValue: String

    /// The code `rawValue`.
    package init(rawValue: String) { self.rawValue = rawValue }

    /// A TLS failure during NTS-KE: `nts_ke_tls_<code>`.
    package static func tls(_ code: TLSErrorCode) -> Self { Self(rawValue: "nts_ke_tls_\(code)") }
    /// A refused NTS-KE response: `nts_ke_<code>` with the parser's code.
    package static func keyExchange(_ code: NTSError.Code) -> Self { Self(rawValue: "nts_ke_\(code)") }
    /// The NTS-KE server's name did not resolve.
    package static let keResolutionFailed = Self(rawValue: "nts_ke_resolution_failed")
    /// Nothing listens on the NTS-KE server's TCP port.
    package static let keRefused = Self(rawValue: "nts_ke_refused")
    /// The key exchange did not finish in time.
    package static let keTimeout = Self(rawValue: "nts_ke_timeout")
    /// The connection to the NTS-KE server failed below TLS.
    package static let keTransport = Self(rawValue: "nts_ke_transport")
    /// The server finished TLS without agreeing on ALPN `ntske/1`.
    package static let keNoALPN = Self(rawValue: "nts_ke_no_alpn")
    /// The server sent a Warning record, which this client does not understand.
    package static let keWarning = Self(rawValue: "nts_ke_warning")
    /// The connection closed before End of Message.
    package static let keTruncated = Self(rawValue: "nts_ke_truncated")
    /// A key exchange with the server failed recently; the next one waits.
    package static let keBackoff = Self(rawValue: "nts_ke_backoff")
    /// The NTP server the key exchange named did not resolve.
    package static let ntpResolutionFailed = Self(rawValue: "nts_ntp_resolution_failed")
    /// Etiquette kept the server's NTP address silent, as a plain source's `skipped` status says.
    package static let skipped = Self(rawValue: "skipped")
    /// The query was cancelled.
    package static let cancelled = Self(rawValue: "cancelled")
}

extension CodedError where Kind == NTSFailureCode {
    /// A TLS failure during NTS-KE: the code carries the TLS one (`nts_ke_tls_<code>`).
    package init(_ error: TLSError, server: String) {
        self.init(.tls(error.code), "NTS-KE with \(server): TLS \(error.reason)")
    }

    /// A refused NTS-KE response: the code carries the parser's (`nts_ke_<code>`).
    package init(_ error: NTSError, server: String) {
        self.init(.keyExchange(error.code), "NTS-KE with \(server): \(error.reason)")
    }

    /// The NTS-KE server could not be reached.
    package init(_ error: TransportError, server: String) {
        switch error {
        case .resolutionFailed, .noAddresses:
            self.init(.keResolutionFailed, "NTS-KE with \(server): \(error.description)")
        case .connectionRefused(let address):
            self.init(
                .keRefused,
                "NTS-KE with \(server): connection refused by \(address) (nothing listens on that TCP port)")
        case .timedOut:
            self.init(.keTimeout, "NTS-KE with \(server): \(error.description)")
        case .systemCall:
            self.init(.keTransport, "NTS-KE with \(server): \(error.description)")
        }
    }

    /// The deadline passed before the key exchange finished.
    package static func timedOut(_ server: String, after limit: Duration) -> Self {
        Self(.keTimeout, "NTS-KE with \(server) did not finish within \(limit.formattedSeconds)")
    }

    /// Etiquette kept the server's NTP address silent (a Kiss-o'-Death DENY or RSTR, or a RATE
    /// back-off): code `skipped`, as a plain source's status says.
    package init(skipped admission: SourceEtiquette.Admission) {
        self.init(.skipped, admission.description)
    }

    /// The code of a key exchange refused because a certificate is not valid at the time it was
    /// checked against (`nts_ke_tls_` + the TLS code).
    package static let certificateTimeCode = NTSFailure(
        TLSError(.certificateNotValidAtCheckedTime, ""), server: ""
    ).code

    /// The query was cancelled.
    package static func cancelled(_ server: String) -> Self {
        Self(.cancelled, "the NTS query of \(server) was cancelled")
    }
}
