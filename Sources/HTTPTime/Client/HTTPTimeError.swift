import NetClockPlatform
import TimeValues

/// Why an ``HTTPTimeClient`` measurement produced no time. Compare ``code``; ``reason`` is for people.
package struct HTTPTimeError: Error, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of failure (the raw value appears in JSON output).
    package enum Code: String, ErrorCode, CaseIterable {
        /// The URL's scheme is not `http` or `https`.
        case unsupportedScheme = "unsupported_scheme"
        /// The response has no `Date` header.
        case missingDateHeader = "missing_date_header"
        /// The `Date` header is not a valid HTTP-date.
        case malformedDateHeader = "malformed_date_header"
        /// The configured timestamp header is absent.
        case missingTimestampHeader = "missing_timestamp_header"
        /// The configured timestamp header is not a valid number.
        case malformedTimestampHeader = "malformed_timestamp_header"
        /// The response came from a cache (`Age` other than 0, or a cache naming it a hit in
        /// `X-Cache` or `Cache-Status`), so its time is stale.
        case cachedResponse = "cached_response"
        /// The status was not 2xx or 3xx (after falling back from `HEAD` to `GET`).
        case httpStatus = "http_status"
        /// No response within the per-request timeout or the overall deadline.
        case timeout = "timeout"
        /// The connection failed (refused, reset, closed early, …); the reason says which.
        case transport = "transport"
        /// An `https://` server's certificate was refused: ``reason`` carries the verifier's
        /// verdict, such as `certificate verify failed: certificate has expired`, `…: Hostname
        /// mismatch` or `…: self-signed certificate`.
        case certificateRejected = "certificate_rejected"
        /// TLS failed otherwise: the handshake (no common version, a handshake alert, the peer
        /// closing it), an unusable CA file, or a broken connection after it (a bad record, an
        /// alert, the connection cut without a TLS close_notify inside the response head).
        case tls = "tls"
        /// The responses' intervals do not overlap: the server's clock jumped or is inconsistent.
        case inconsistentIntervals = "inconsistent_intervals"
        /// The response head (status line and header fields) is longer than
        /// ``HTTPTimeClient/Configuration/maximumResponseHeadBytes``.
        case headersTooLarge = "headers_too_large"
        /// The response is not valid HTTP/1.x: a malformed status line or header field, or an
        /// unrequested protocol switch. ``reason`` says what.
        case malformedResponse = "malformed_response"
        /// The proxy could not be reached: its name did not resolve or it refused the connection.
        case proxyUnreachable = "proxy_unreachable"
        /// The proxy refused to open the `CONNECT` tunnel; ``statusCode`` is its status (such as
        /// 403 or 502) and ``reason`` says to where.
        case proxyRefused = "proxy_refused"
        /// The proxy asked for credentials (HTTP 407) or refused the ones given; ``reason`` names
        /// the scheme its `Proxy-Authenticate` asked for (credentials never appear).
        case proxyAuthenticationRequired = "proxy_authentication_required"
        /// The proxy closed (or reset) the connection before its answer to `CONNECT` was complete.
        case proxyClosed = "proxy_closed"
        /// The proxy's answer to `CONNECT` is not valid HTTP/1.x, too long, or followed by bytes
        /// before the TLS handshake began.
        case proxyMalformedResponse = "proxy_malformed_response"
        /// The configured proxy cannot be used (not an `http://` proxy, no host, a bad port); the
        /// request is not sent around it.
        case unsupportedProxy = "unsupported_proxy"
        /// The measurement's task was cancelled.
        case cancelled = "cancelled"
    }

    /// The kind of failure.
    package let code: Code
    /// A readable explanation.
    package let reason: String
    /// The HTTP status code, for ``Code/httpStatus``.
    package let statusCode: Int?
    /// The requests made before the failure, for reports.
    package internal(set) var requests: [HTTPRequestRecord]

    /// Creates an error.
    package init(
        _ code: Code, _ reason: String, statusCode: Int? = nil,
        requests: [HTTPRequestRecord] = []
    ) {
        self.code = code
        self.reason = reason
        self.statusCode = statusCode
        self.requests = requests
    }

    /// `code: reason`.
    package var description: String { "\(code): \(reason)" }
}
