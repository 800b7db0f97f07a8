/// A stable, snake_case identifier of a kind of failure (`handshake_failed`, `headers_too_large`):
/// what programs and tests compare, and what the CLI's JSON prints. Every error code of the
/// package conforms: the ``CodedError`` ones, the richer errors' (`HTTPTimeError`, `NTSError`,
/// …) and the public ones' (`SNTPError.Code`, `SyncError.Code`, `AnchorStoreError.Code`).
///
/// A fixed set of codes is a `String` enum (whose ``description`` is then its raw value, not the
/// case name); a set that grows in other modules is an open struct with `static` members.
package protocol ErrorCode: RawRepresentable<String>, Hashable, Sendable, CustomStringConvertible {}

extension ErrorCode {
    /// The code's stable name, such as `handshake_failed`.
    package var description: String { rawValue }
}

/// The package's one error shape: a stable ``code`` and a readable ``reason``, in the style of
/// swift-certificates' `CertificateError`. Two errors are equal when their codes are, whatever their
/// reasons say; people read `code: reason`.
///
/// `Kind` is the kind's own code type (``Code``), so one kind's codes cannot be confused with
/// another's; each kind names its specialisation once, e.g.
/// `package typealias TLSError = CodedError<TLSErrorCode>`.
/// Errors that carry more than a code and a reason (an HTTP status and the requests made, a byte
/// position, an NTS server's error number, the reports of a sync) are their own types, with a
/// ``ErrorCode`` of their own.
package struct CodedError<Kind: ErrorCode>: Error, Hashable, Sendable, CustomStringConvertible {
    /// The code type, as `TLSError.Code` names it.
    package typealias Code = Kind

    /// What kind of failure this is.
    package let code: Code
    /// A readable explanation, for people; its wording may change.
    package let reason: String

    /// An error with `code`, explained by `reason`.
    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    package var description: String { "\(code): \(reason)" }

    /// Equal when the codes are equal.
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistent with `==`.
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
