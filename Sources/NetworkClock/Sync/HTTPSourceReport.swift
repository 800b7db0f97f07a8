import Foundation
import SNTP

/// One HTTP(S) URL's part in a sync: what it measured, or why it could not.
package struct HTTPSourceReport: Hashable, Sendable {
    /// The URL.
    package var url: String
    /// `selected`, `survivor` (measured but another URL's bound was tighter) or `error`.
    package var status: SourceStatus
    /// Why, when it failed.
    package var reason: String?
    /// The stable error code, when it failed.
    package var errorCode: String?
    /// `date` or the timestamp header's name, when measured.
    package var kind: String?
    /// The measured offset (true − local wall clock), when measured.
    package var offset: Duration?
    /// The measured bound, when measured.
    package var errorBound: Duration?
    /// Every request made, with the interval each gave.
    package var requests: [HTTPRequestRecord]

    /// A report for a completed measurement.
    package init(_ measurement: HTTPTimeMeasurement, status: SourceStatus) {
        self.url = measurement.url.absoluteString
        self.status = status
        switch measurement.kind {
        case .dateHeader: self.kind = "date"
        case .timestampHeader(let name): self.kind = name
        }
        self.offset = measurement.offset
        self.errorBound = measurement.errorBound
        self.requests = measurement.requests
    }

    /// A report for a failed measurement.
    package init(url: URL, error: HTTPTimeError) {
        self.url = url.absoluteString
        self.status = .error
        self.reason = error.description
        self.errorCode = error.code.rawValue
        self.requests = error.requests
    }
}
