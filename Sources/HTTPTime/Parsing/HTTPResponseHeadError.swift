import NetClockPlatform

/// Why bytes received from a server are not a valid HTTP/1.x response head (RFC 9112 §4 and §5):
/// a ``HTTPResponseHeadErrorCode`` and a reason.
///
/// Compare ``CodedError/code`` in code and tests; the reason is for people and may change wording.
package typealias HTTPResponseHeadError = CodedError<HTTPResponseHeadErrorCode>

/// What kind of problem an ``HTTPResponseHeadError`` is.
package enum HTTPResponseHeadErrorCode: String, ErrorCode, CaseIterable {
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
