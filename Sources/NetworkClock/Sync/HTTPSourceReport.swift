import Foundation
import HTTPTime
import NetClockTLS
import SNTP
import TimeBase

extension SyncReport {
    /// One HTTP(S) URL's part in a sync: what it measured, or why it could not.
    public struct HTTPSource: Hashable, Sendable {
        /// The URL.
        public package(set) var url: String
        /// `selected`, `survivor` (measured but another URL's bound was tighter) or `error`.
        public package(set) var status: SyncReport.SourceStatus
        /// Why, when it failed.
        public package(set) var reason: String?
        /// The stable error code, when it failed.
        public package(set) var errorCode: String?
        /// `date` or the timestamp header's name, when measured.
        public package(set) var kind: String?
        /// The measured offset (true − local wall clock), when measured.
        public package(set) var offset: Duration?
        /// The measured bound, when measured.
        public package(set) var errorBound: Duration?
        /// Requests made to this URL.
        public var requestCount: Int { requests.count }
        /// Every request made, with the interval each gave.
        package var requests: [HTTPRequestRecord]
        /// For `https://`: the validity periods of the server's verified chain, leaf first.
        package var certificateChain: [CertificateValidity] = []

        /// A report for a completed measurement.
        package init(_ measurement: HTTPTimeMeasurement, status: SyncReport.SourceStatus) {
            self.url = measurement.url.absoluteString
            self.status = status
            switch measurement.kind {
            case .dateHeader: self.kind = "date"
            case .timestampHeader(let name): self.kind = name
            }
            self.offset = measurement.offset
            self.errorBound = measurement.errorBound
            self.requests = measurement.requests
            self.certificateChain = measurement.certificateChain
        }

        /// A report for a failed measurement.
        /// A report for a URL that was not measured, with the status and reason.
        package init(url: URL, notMeasured status: SyncReport.SourceStatus, reason: String) {
            self.url = url.absoluteString
            self.status = status
            self.reason = reason
            self.requests = []
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
}
