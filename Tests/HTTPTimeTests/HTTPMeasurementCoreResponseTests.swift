import Foundation
import HTTPTime
import LoopbackServers
import NetClockTLS
import Testing
import TimeValues

/// What each response proves, on the manual clock: the status rules, the headers read or refused,
/// the request budget and deadlines, certificates checked against the server's own time, and the
/// records a measurement keeps. (The loopback suites keep one smoke test per transport.)
extension HTTPMeasurementCoreTests {
    typealias Server = ScriptedServer

    /// Drives a fresh core with `configuration` against `server` to its error, or records an issue.
    static func failure(
        _ server: Server, _ configuration: HTTPTimeClient.Configuration = .init(),
        proxy: HTTPProxy? = nil
    ) -> (HTTPTimeError?, [HTTPMeasurementCore.Request]) {
        var core = Self.core(configuration, proxy: proxy)
        let (result, sent) = Self.drive(&core, server)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return (nil, sent)
        }
        return (error, sent)
    }

    /// A server that refuses `HEAD` (405 or 501) is asked with `GET` from then on; the refused
    /// request is recorded without an interval and costs one request of the budget.
    @Test(arguments: [405, 501])
    func aServerRefusingHeadIsAskedWithGetForTheRest(status: Int) {
        var core = Self.core(HTTPTimeClient.Configuration(maximumRequests: 3))
        var server = Server(offset: .milliseconds(1_700))
        server.refusesHead = status
        let (result, sent) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        #expect(sent.map(\.method) == [.head, .get, .get])
        #expect(measurement.requests.map(\.method) == [.head, .get, .get])
        #expect(measurement.requests.map(\.statusCode) == [status, 200, 200])
        #expect(measurement.requests.first?.interval == nil)
        #expect(Self.holds(measurement.interval, server.truth(at: measurement.interval.instant)))
    }

    /// A 3xx response carries the server's clock like a 2xx: it is evidence (nothing follows the
    /// redirect: the core asks the same URL again).
    @Test(arguments: [200, 204, 301, 304, 399])
    func successAndRedirectAnswersAreEvidence(status: Int) {
        var core = Self.core(HTTPTimeClient.Configuration(maximumRequests: 2))
        var server = Server(offset: .milliseconds(1_700))
        server.status = status
        let (result, _) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        #expect(measurement.requests.map(\.statusCode) == [status, status])
        #expect(Self.holds(measurement.interval, server.truth(at: measurement.interval.instant)))
    }

    /// Any other status ends the measurement at once with `http_status` and the status, one
    /// request recorded; 401 and 407 from an origin (no proxy) are such statuses too.
    @Test(arguments: [400, 401, 403, 404, 407, 500, 502, 503, 599])
    func anErrorStatusEndsTheMeasurement(status: Int) {
        var server = Server(offset: .zero)
        server.status = status
        let (failure, sent) = Self.failure(server)
        guard let error = failure else { return }
        #expect(error.code == .httpStatus)
        #expect(error.statusCode == status)
        #expect(error.reason.contains("HEAD answered HTTP \(status)"), "\(error.reason)")
        #expect(sent.count == 1 && error.requests.count == 1)
        #expect(error.requests.first?.statusCode == status)
    }

    /// Through a proxy, 407 (or 401 with `Proxy-Authenticate`) is the proxy asking for credentials:
    /// the error names the proxy and its scheme, whether credentials were given, never the secret.
    @Test(arguments: [
        (407, "Basic realm=\"x\"", "http://proxy.example:3128", "asks for credentials"),
        (401, "Basic", "http://proxy.example:3128", "asks for credentials"),
        (407, "Digest realm=\"x\"", "http://user:secret@proxy.example:3128", "refused the credentials given"),
    ])
    func aProxyAskingForCredentialsIsNamed(status: Int, scheme: String, proxyURL: String, words: String)
        throws
    {
        let proxy = try HTTPProxy.parse(proxyURL).get()
        var server = Server(offset: .zero)
        server.status = status
        server.fields = { _ in [.init(name: "Proxy-Authenticate", value: scheme)] }
        guard let error = Self.failure(server, proxy: proxy).0 else { return }
        #expect(error.code == .proxyAuthenticationRequired)
        #expect(error.statusCode == status)
        #expect(error.reason.contains("the proxy proxy.example:3128 \(words)"), "\(error.reason)")
        #expect(error.reason.contains("Proxy-Authenticate: \(scheme.split(separator: " ")[0])"))
        #expect(!error.reason.contains("secret") && !error.reason.contains("user"), "\(error.reason)")
        // A 401 without Proxy-Authenticate through a proxy is the origin's.
        server.fields = { _ in [] }
        if status == 401, let origin = Self.failure(server, proxy: proxy).0 {
            #expect(origin.code == .httpStatus)
            #expect(origin.reason.contains("through the proxy proxy.example:3128"), "\(origin.reason)")
        }
    }

    /// What a 2xx response lacks or says that makes it no evidence: each its code, one request.
    @Test(arguments: [
        (HeaderCase.noDate, HTTPTimeError.Code.missingDateHeader),
        (.date("Sun, 06 Nov 1994 25:00:00 GMT"), .malformedDateHeader),
        (.date("yesterday"), .malformedDateHeader),
        (.field("Age", "300"), .cachedResponse),
        (.field("X-Cache", "HIT from squid"), .cachedResponse),
        (.field("Cache-Status", "Squid; hit"), .cachedResponse),
        (.timestampHeaderMissing, .missingTimestampHeader),
        (.timestampHeaderValue("soon"), .malformedTimestampHeader),
    ])
    func aResponseThatIsNoEvidenceEndsTheMeasurement(_ header: HeaderCase, code: HTTPTimeError.Code) {
        var server = Server(offset: .zero)
        var configuration = HTTPTimeClient.Configuration()
        switch header {
        case .noDate:
            server.dateStyle = nil
        case .date(let value):
            server.dateStyle = nil
            server.fields = { _ in [.init(name: "Date", value: value)] }
        case .field(let name, let value):
            server.fields = { _ in [.init(name: name, value: value)] }
        case .timestampHeaderMissing:
            configuration = HTTPTimeClient.Configuration(timestampHeader: "X-Server-Time-Ms")
        case .timestampHeaderValue(let value):
            configuration = HTTPTimeClient.Configuration(timestampHeader: "X-Server-Time-Ms")
            server.fields = { _ in [.init(name: "x-server-time-ms", value: value)] }
        }
        let (failure, sent) = Self.failure(server, configuration)
        guard let error = failure else { return }
        #expect(error.code == code, "\(error)")
        #expect(!error.reason.isEmpty)
        #expect(sent.count == 1 && error.requests.count == 1)
        #expect(error.requests.first?.statusCode == 200)
    }

    /// A header's defect, for ``aResponseThatIsNoEvidenceEndsTheMeasurement(_:code:)``.
    enum HeaderCase: Sendable, CustomTestStringConvertible {
        case noDate
        case date(String)
        case field(String, String)
        case timestampHeaderMissing
        case timestampHeaderValue(String)

        var testDescription: String {
            switch self {
            case .noDate: return "no Date"
            case .date(let value): return "Date: \(value)"
            case .field(let name, let value): return "\(name): \(value)"
            case .timestampHeaderMissing: return "no X-Server-Time-Ms"
            case .timestampHeaderValue(let value): return "X-Server-Time-Ms: \(value)"
            }
        }
    }

    /// The obsolete `Date` forms (RFC 850 with a two-digit year, asctime) are read like IMF-fixdate:
    /// one response gives the truth within its second and the round trip.
    @Test(arguments: [HTTPTimeServerDateStyle.rfc850, .asctime, .imfFixdate])
    func obsoleteDateFormsAreEvidence(style: HTTPTimeServerDateStyle) {
        var core = Self.core(HTTPTimeClient.Configuration(maximumRequests: 1))
        var server = Server(offset: .milliseconds(1_700))
        server.dateStyle = style
        let (result, _) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        #expect(Self.holds(measurement.interval, server.truth(at: measurement.interval.instant)))
        // Half a second of `Date`, half the 8 ms round trip.
        #expect(measurement.interval.radius <= .milliseconds(504) + .microseconds(10))
    }

    /// The budget ends refining: with no target (never precise enough) exactly `maximumRequests`
    /// are sent, and what they gave is the measurement.
    @Test(arguments: [1, 2, 3])
    func theRequestBudgetEndsRefining(maximumRequests: Int) {
        var core = Self.core(
            HTTPTimeClient.Configuration(maximumRequests: maximumRequests, targetErrorBound: .zero))
        let server = Server(offset: .milliseconds(2_300))
        let (result, sent) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        #expect(sent.count == maximumRequests)
        #expect(measurement.requests.count == maximumRequests)
        #expect(Self.holds(measurement.interval, server.truth(at: measurement.interval.instant)))
        // One `Date` is a whole second wide; each boundary probe halves it at least.
        // (Each probe's own round trip, 8 ms, widens what is left.)
        let bound = Duration.milliseconds(510) / (1 << (maximumRequests - 1)) + .milliseconds(8)
        #expect(measurement.interval.radius <= bound, "\(measurement.interval.radius)")
    }

    /// Each request may take the request timeout, or what is left of the deadline when that is
    /// shorter: the deadline wins.
    @Test(arguments: [
        (Duration.seconds(3), Duration.milliseconds(300), Duration.milliseconds(300)),
        (.milliseconds(400), .seconds(10), .milliseconds(400)),
        (.seconds(3), .seconds(10), .seconds(3)),
    ])
    func eachRequestMayTakeTheTimeoutOrWhatIsLeftOfTheDeadline(
        requestTimeout: Duration, deadline: Duration, expected: Duration
    ) {
        let core = Self.core(
            HTTPTimeClient.Configuration(requestTimeout: requestTimeout, deadline: deadline),
            deadline: deadline)
        guard case .send(let request) = core.next(now: Self.start) else {
            Issue.record("no request")
            return
        }
        #expect(request.timeout == expected)
        // Later in the measurement, what is left of the deadline.
        guard case .send(let later) = core.next(now: Self.start + deadline - .milliseconds(100)) else {
            Issue.record("no request 100 ms before the deadline")
            return
        }
        #expect(later.timeout == min(requestTimeout, .milliseconds(100)))
    }

    /// Checked without trusted time, a certificate is refused when the server's own answer says
    /// it has expired or is not yet valid; one valid at that time passes, and so does any chain
    /// when the certificates were checked against the time (the TLS layer decided then).
    @Test(arguments: [
        (CertificateCase.expired, true, String?("has expired")), (.notYetValid, true, "is not yet valid"),
        (.valid, true, nil), (.expired, false, nil),
    ])
    func certificatesCheckedWithoutTimeMeetTheServersOwnTime(
        _ certificate: CertificateCase, unchecked: Bool, refusal: String?
    ) {
        var core = Self.core(certificatesUnchecked: unchecked)
        let server = Server(offset: .zero)
        guard case .send(let request) = core.next(now: Self.start) else { return }
        let answer = server.answer(request, now: Self.start)
        let day: Int64 = 86_400
        let now = Self.wall.seconds
        let validity: CertificateValidity
        switch certificate {
        case .expired:
            validity = CertificateValidity(notBefore: now - 400 * day, notAfter: now - day, subject: "CN=old")
        case .notYetValid:
            validity = CertificateValidity(notBefore: now + day, notAfter: now + 400 * day, subject: "CN=new")
        case .valid:
            validity = CertificateValidity(notBefore: now - day, notAfter: now + day, subject: "CN=ok")
        }
        let outcome = HTTPExchangeOutcome(
            sent: answer.sent, received: answer.received, result: answer.result, certificateChain: [validity])
        let error = core.receive(outcome)
        if let refusal {
            #expect(error?.code == .certificateRejected)
            #expect(error?.reason.contains(refusal) == true, "\(String(describing: error))")
            #expect(error?.reason.contains("time.example") == true)
        } else {
            #expect(error == nil, "\(String(describing: error))")
        }
    }

    /// A certificate's validity relative to the server's time.
    enum CertificateCase: String, Sendable { case expired, notYetValid, valid }

    /// Each request's record: the method, status, header read, its interval and the intersection
    /// so far, the instants and the local time at the receipt; the measurement's times agree.
    @Test func theRecordsSayWhatEachRequestShowed() {
        var core = Self.core(HTTPTimeClient.Configuration(maximumRequests: 3, targetErrorBound: .zero))
        let server = Server(offset: .milliseconds(640), outbound: .milliseconds(3), inbound: .milliseconds(5))
        let (result, sent) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        #expect(measurement.requests.count == 3)
        let mapping = TimeMapping(wall: Self.wall, monotonic: Self.start)
        var previous: TrueTimeInterval?
        for (record, request) in zip(measurement.requests, sent) {
            #expect(record.method == .head && record.statusCode == 200)
            #expect(record.sent == (request.sendAt ?? Self.start))
            #expect(record.roundTrip == .milliseconds(8))
            #expect(record.headerName == "Date")
            #expect(
                record.headerValue
                    == HTTPTimeServerDateStyle.imfFixdate.format(
                        server.truth(at: record.sent + .milliseconds(3))))
            #expect(record.localReceiveTime == mapping.wallTime(at: record.received))
            guard let interval = record.interval, let combined = record.combined else {
                Issue.record("a request with a time has no interval: \(record)")
                continue
            }
            #expect(Self.holds(interval, server.truth(at: interval.instant)))
            #expect(combined.radius <= interval.radius)
            if let previous { #expect(combined.radius <= previous.radius + .microseconds(1)) }
            previous = record.combined
        }
        #expect(measurement.interval == measurement.requests.last?.combined)
        #expect(measurement.localTime == mapping.wallTime(at: measurement.interval.instant))
        #expect(measurement.trueTime == measurement.localTime + measurement.offset)
        #expect(measurement.roundTripDelay == .milliseconds(8))
        #expect(measurement.offsets.contains(.milliseconds(640)))
    }

    /// A cancelled exchange ends the measurement as `cancelled`, recorded.
    @Test func aCancelledExchangeEndsItAsCancelled() {
        var core = Self.core()
        guard case .send = core.next(now: Self.start) else { return }
        let error = core.receive(
            HTTPExchangeOutcome(sent: Self.start, received: Self.start + .milliseconds(3), result: .cancelled)
        )
        #expect(error?.code == .cancelled)
        #expect(core.records.count == 1)
    }
}
