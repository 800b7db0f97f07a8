import TimeValues

/// One HTTP request made while measuring, with what it showed: for reports and the CLI's JSON.
package struct HTTPRequestRecord: Hashable, Sendable {
    /// The request method used.
    package enum Method: String, Hashable, Sendable {
        /// `HEAD`, tried first.
        case head = "HEAD"
        /// `GET`, used when the server refuses `HEAD` with 405 or 501.
        case get = "GET"
    }

    /// The method used.
    package var method: Method
    /// The HTTP status code, or nil when no response arrived.
    package var statusCode: Int?
    /// The monotonic instant just before the request was handed to the transport.
    package var sent: MonotonicInstant
    /// The monotonic instant the response (or failure) was delivered.
    package var received: MonotonicInstant
    /// The name of the header the time was read from (`Date` or the timestamp header), if any.
    package var headerName: String?
    /// That header's raw value, when present.
    package var headerValue: String?
    /// The interval this response alone gave (the true time at ``received``), when it gave one.
    package var interval: TrueTimeInterval?
    /// The intersection of all intervals up to and including this one, when there is one.
    package var combined: TrueTimeInterval?
    /// The local wall clock's reading at ``received``: what the intervals are shown as offsets from.
    package var localReceiveTime: UnixTime

    /// Creates a record.
    package init(
        method: Method, statusCode: Int?, sent: MonotonicInstant, received: MonotonicInstant,
        headerName: String?, headerValue: String?, interval: TrueTimeInterval?,
        combined: TrueTimeInterval?, localReceiveTime: UnixTime
    ) {
        self.method = method
        self.statusCode = statusCode
        self.sent = sent
        self.received = received
        self.headerName = headerName
        self.headerValue = headerValue
        self.interval = interval
        self.combined = combined
        self.localReceiveTime = localReceiveTime
    }

    /// The round-trip time: from sending the request to receiving the response.
    package var roundTrip: Duration { received - sent }
}
