import NetworkClock
import TimeValues

/// One HTTP(S) URL in the `http` array: what it measured or why it failed, and every request.
struct HTTPSourceJSON: Encodable {
    var url: String
    var status: String
    var reason: Nullable<String>
    var errorCode: Nullable<String>
    var kind: Nullable<String>
    var offset: Nullable<Double>
    var errorBound: Nullable<Double>
    var requests: [HTTPRequestJSON]
    /// For `https://`: the time the certificates were checked against; `null` for `http://`.
    var certificateTime: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case url, status, reason, kind, offset, requests
        case errorCode = "error_code"
        case errorBound = "error_bound"
        case certificateTime = "certificate_time"
    }

    /// The entries of the HTTP(S) URLs among `servers`, in order.
    static func entries(_ servers: [SyncReport.Server], certificateCheck: SyncReport.CertificateCheck?)
        -> [HTTPSourceJSON]
    {
        servers.compactMap { server in
            server.http.map { HTTPSourceJSON(server, $0, certificateCheck: certificateCheck) }
        }
    }

    /// The entry for `report`, a URL whose details are `http`; each request's `sent` is relative to
    /// the first request.
    init(
        _ report: SyncReport.Server, _ http: SyncReport.Server.HTTP,
        certificateCheck: SyncReport.CertificateCheck? = nil
    ) {
        certificateTime = Nullable(report.kind == .https ? certificateCheck?.rawValue : nil)
        url = report.name
        status = report.status.rawValue
        reason = Nullable(report.reason)
        errorCode = Nullable(report.errorCode)
        kind = Nullable(http.header)
        offset = Nullable(report.offset?.secondsDouble)
        errorBound = Nullable(report.errorBound?.secondsDouble)
        let first = http.requests.first?.sent
        requests = http.requests.map { HTTPRequestJSON($0, first: first) }
    }
}

/// One HTTP request: its round trip, the header it read, and the offset interval it gave alone
/// (`interval`) and combined with the earlier ones (`combined`), as `[lower, upper]` seconds.
struct HTTPRequestJSON: Encodable {
    var method: String
    var status: Nullable<Int>
    var sent: Nullable<Double>
    var roundTrip: Double
    var header: Nullable<String>
    var value: Nullable<String>
    var interval: Nullable<[Double]>
    var combined: Nullable<[Double]>

    enum CodingKeys: String, CodingKey {
        case method, status, sent, header, value, interval, combined
        case roundTrip = "round_trip"
    }

    /// The entry for `request`; `sent` is seconds after `first`.
    init(_ request: HTTPRequestRecord, first: MonotonicInstant?) {
        method = request.method.rawValue
        status = Nullable(request.statusCode)
        sent = Nullable(first.map { (request.sent - $0).secondsDouble })
        roundTrip = request.roundTrip.secondsDouble
        header = Nullable(request.headerName)
        value = Nullable(request.headerValue)
        func offsets(_ interval: TrueTimeInterval) -> [Double] {
            let offsets = interval.offsets(fromWall: request.localReceiveTime)
            return [offsets.lowerBound.secondsDouble, offsets.upperBound.secondsDouble]
        }
        interval = Nullable(request.interval.map(offsets))
        combined = Nullable(request.combined.map(offsets))
    }
}
