import SNTP

/// Why bytes received from a server are not a valid HTTP/1.x response head (RFC 9112 §4 and §5).
///
/// Compare ``code`` in code and tests; ``reason`` is for people and may change wording.
package struct HTTPResponseHeadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of problem.
    package enum Code: String, Hashable, Sendable, CaseIterable {
        /// There is no status line at all.
        case empty = "empty"
        /// The status line is not `HTTP/x.y SP 3DIGIT [SP reason]`.
        case invalidStatusLine = "invalid_status_line"
        /// The HTTP version is not 1.x.
        case unsupportedVersion = "unsupported_version"
        /// The status code is not three digits between 100 and 599.
        case invalidStatusCode = "invalid_status_code"
        /// The reason phrase contains a control character.
        case invalidReasonPhrase = "invalid_reason_phrase"
        /// A header line has no colon, or the first one starts with whitespace.
        case invalidFieldLine = "invalid_field_line"
        /// A field name is empty, or contains a character that a token may not (whitespace
        /// before the colon included).
        case invalidFieldName = "invalid_field_name"
        /// A field value contains a control character (NUL included).
        case invalidFieldValue = "invalid_field_value"
        /// A carriage return that does not end a line.
        case bareCarriageReturn = "bare_carriage_return"
    }

    /// The kind of problem.
    package let code: Code
    /// A readable explanation.
    package let reason: String

    /// Creates an error with a code and a reason.
    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    package var description: String { "\(code.rawValue): \(reason)" }
}
