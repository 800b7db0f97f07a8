import NetClockPlatform

/// Why NTS bytes (an NTS-KE record stream, an NTS-protected NTP packet or its decrypted
/// extension fields) were refused: a stable ``code`` for programs and a ``reason`` for people.
///
/// Compare ``code`` in code and tests; ``reason`` may change wording.
package struct NTSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for a kind of failure.
    package struct Code: ErrorCode {
        /// The identifier, e.g. `unknown_critical_record`.
        package let rawValue: String

        /// Creates a code from its identifier.
        package init(rawValue: String) { self.rawValue = rawValue }

        // NTS-KE (RFC 8915 §4).

        /// The record stream ended (connection closed) inside a record or before End of Message.
        package static let truncated = Code(rawValue: "truncated")
        /// The response is larger than the parser's size cap.
        package static let responseTooLarge = Code(rawValue: "response_too_large")
        /// A record with the critical bit set and a type we do not know (RFC 8915 §4).
        package static let unknownCriticalRecord = Code(rawValue: "unknown_critical_record")
        /// The server sent an Error record (RFC 8915 §4.1.3); ``NTSError/serverCode`` holds its code.
        package static let serverError = Code(rawValue: "server_error")
        /// A known record whose body has the wrong length or content.
        package static let malformedRecord = Code(rawValue: "malformed_record")
        /// A record that may appear once appeared twice.
        package static let duplicateRecord = Code(rawValue: "duplicate_record")
        /// No Next Protocol record, or one that does not select NTPv4 (protocol 0).
        package static let noNTPv4 = Code(rawValue: "no_ntpv4")
        /// No AEAD record, or one naming an algorithm we did not offer.
        package static let unsupportedAEAD = Code(rawValue: "unsupported_aead")
        /// The NTPv4 Server Negotiation body is not a printable-ASCII host of 1–255 bytes.
        package static let invalidServer = Code(rawValue: "invalid_server")
        /// The response carries no New Cookie record.
        package static let noCookies = Code(rawValue: "no_cookies")
        /// Bytes arrived after End of Message.
        package static let bytesAfterEnd = Code(rawValue: "bytes_after_end")
        /// A value to encode does not fit its wire field.
        package static let unencodable = Code(rawValue: "unencodable")

        // NTS extension fields for NTPv4 (RFC 8915 §5, RFC 7822).

        /// Fewer than 48 bytes, or an extension field running past the end of the packet.
        package static let truncatedField = Code(rawValue: "truncated_field")
        /// The packet is larger than the size cap, or has more fields than the cap.
        package static let packetTooLarge = Code(rawValue: "packet_too_large")
        /// An extension field length that is not a multiple of 4.
        package static let misalignedField = Code(rawValue: "misaligned_field")
        /// An extension field shorter than the minimum for its position or type.
        package static let fieldTooShort = Code(rawValue: "field_too_short")
        /// A packet with no extension fields at all from an NTS peer (a downgrade).
        package static let noExtensionFields = Code(rawValue: "no_extension_fields")
        /// No NTS Authenticator and Encrypted Extension Fields field.
        package static let missingAuthenticator = Code(rawValue: "missing_authenticator")
        /// More than one authenticator field.
        package static let duplicateAuthenticator = Code(rawValue: "duplicate_authenticator")
        /// A field follows the authenticator field.
        package static let authenticatorNotLast = Code(rawValue: "authenticator_not_last")
        /// The authenticator's nonce and ciphertext lengths do not fit its field.
        package static let malformedAuthenticator = Code(rawValue: "malformed_authenticator")
        /// More than one Unique Identifier field.
        package static let duplicateUniqueIdentifier = Code(rawValue: "duplicate_unique_identifier")
        /// No Unique Identifier field.
        package static let missingUniqueIdentifier = Code(rawValue: "missing_unique_identifier")
    }

    /// The kind of failure.
    package let code: Code
    /// What went wrong, for people.
    package let reason: String
    /// For ``Code/serverError``: the Error record's code (0 unrecognized critical record, 1 bad
    /// request, 2 internal server error).
    package let serverCode: UInt16?

    /// Creates an error.
    package init(_ code: Code, _ reason: String, serverCode: UInt16? = nil) {
        self.code = code
        self.reason = reason
        self.serverCode = serverCode
    }

    /// `code: reason`.
    package var description: String { "\(code): \(reason)" }
}
