#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NetClockTLS
import SNTP
import TimeValues

extension SyncReport.Server {
    /// What only an HTTP(S) URL reports: the header its time came from and every request made.
    public struct HTTP: Hashable, Sendable {
        /// `date` or the timestamp header's name, when measured.
        public package(set) var header: String?
        /// Requests made to this URL.
        public var requestCount: Int { requests.count }
        /// Every request made, with the interval each gave.
        package var requests: [HTTPRequestRecord] = []
        /// The measured offset (true − local wall clock), when measured.
        package var offset: Duration?
        /// The measured bound, when measured.
        package var errorBound: Duration?
        /// The times the measurement proves, at its instant, when measured.
        package var interval: TrueTimeInterval?
        /// Whether the URL is `https://`.
        package var isHTTPS: Bool

        /// Creates details.
        package init(
            header: String? = nil, requests: [HTTPRequestRecord] = [], offset: Duration? = nil,
            errorBound: Duration? = nil, isHTTPS: Bool
        ) {
            self.header = header
            self.requests = requests
            self.offset = offset
            self.errorBound = errorBound
            self.isHTTPS = isHTTPS
        }
    }
}

extension SyncReport.Server {
    /// A report for a completed measurement.
    package init(_ measurement: HTTPTimeMeasurement, status: SyncReport.SourceStatus) {
        let header: String
        switch measurement.kind {
        case .dateHeader: header = "date"
        case .timestampHeader(let name): header = name
        }
        self.init(
            name: measurement.url.absoluteString, status: status,
            details: Self.details(
                HTTP(
                    header: header, requests: measurement.requests, offset: measurement.offset,
                    errorBound: measurement.errorBound, isHTTPS: Self.isHTTPS(measurement.url))))
        http?.interval = measurement.interval
        certificateChain = measurement.certificateChain
    }

    /// A report for a URL that was not measured, with the status and reason.
    package init(url: URL, notMeasured status: SyncReport.SourceStatus, reason: String) {
        self.init(
            name: url.absoluteString, status: status, reason: reason,
            details: Self.details(HTTP(isHTTPS: Self.isHTTPS(url))))
    }

    /// A report for a failed measurement.
    package init(url: URL, error: HTTPTimeError) {
        self.init(
            name: url.absoluteString, status: .error, reason: error.description,
            details: Self.details(HTTP(requests: error.requests, isHTTPS: Self.isHTTPS(url))))
        errorCode = error.code.rawValue
    }

    private static func isHTTPS(_ url: URL) -> Bool { url.scheme?.lowercased() == "https" }

    private static func details(_ http: HTTP) -> Details { http.isHTTPS ? .https(http) : .http(http) }
}
