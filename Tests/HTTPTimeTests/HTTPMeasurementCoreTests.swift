import Foundation
import HTTPTime
import LoopbackServers
import NetClockTLS
import Testing
import TimeValues

/// The HTTP(S) measurement's decisions on a manual clock: no socket, no waiting. A scripted server
/// whose clock is the truth answers each request the core asks for after a one-way delay each way.
@Suite struct HTTPMeasurementCoreTests {
    /// The measurement starts at monotonic 1000 s, when the local wall clock reads `wall`.
    static let start = MonotonicInstant(sinceOrigin: .seconds(1000))
    static let wall = UnixTime(seconds: 1_790_000_000)
    static let url = URL(string: "https://time.example/") ?? URL(fileURLWithPath: "/")

    /// A server whose clock is `offset` ahead of the local wall clock, reached with `outbound` and
    /// `inbound` one-way delays, answering every request with `status` and its `Date`.
    struct ScriptedServer {
        var offset: Duration
        var outbound: Duration = .milliseconds(4)
        var inbound: Duration = .milliseconds(4)
        var status = 200
        /// Whether `HEAD` is refused with this status (405 or 501), `GET` answered with ``status``.
        var refusesHead: Int?
        /// How the `Date` header is written; nil sends none.
        var dateStyle: HTTPTimeServerDateStyle? = .imfFixdate
        /// Extra header fields, e.g. a timestamp header.
        var fields: (UnixTime) -> [HTTPResponseHead.Field] = { _ in [] }

        /// The server's (true) time at monotonic instant `instant`.
        func truth(at instant: MonotonicInstant) -> UnixTime {
            HTTPMeasurementCoreTests.wall + offset + (instant - HTTPMeasurementCoreTests.start)
        }

        /// The outcome of `request`, planned at `now`.
        func answer(_ request: HTTPMeasurementCore.Request, now: MonotonicInstant) -> HTTPExchangeOutcome {
            let sent = request.sendAt ?? now
            let read = truth(at: sent + outbound)
            let date = dateStyle.map { [HTTPResponseHead.Field(name: "Date", value: $0.format(read))] } ?? []
            let head = HTTPResponseHead(
                statusCode: request.method == .head ? (refusesHead ?? status) : status,
                fields: date + fields(read))
            return HTTPExchangeOutcome(
                sent: sent, received: sent + outbound + inbound, result: .response(head))
        }
    }

    /// Drives `core` against `server` to its end; returns the end and the requests sent.
    static func drive(_ core: inout HTTPMeasurementCore, _ server: ScriptedServer)
        -> (Result<HTTPTimeMeasurement, HTTPTimeError>, [HTTPMeasurementCore.Request])
    {
        var now = start
        var sent: [HTTPMeasurementCore.Request] = []
        while sent.count < 100 {
            switch core.next(now: now) {
            case .finish(let measurement): return (.success(measurement), sent)
            case .fail(let error): return (.failure(error), sent)
            case .send(let request):
                sent.append(request)
                let outcome = server.answer(request, now: now)
                if let error = core.receive(outcome) { return (.failure(error), sent) }
                now = outcome.received
            }
        }
        return (.failure(HTTPTimeError(.timeout, "the core never ended")), sent)
    }

    /// Whether `interval` holds `truth`.
    static func holds(_ interval: TrueTimeInterval, _ truth: UnixTime) -> Bool {
        interval.earliest <= truth && truth <= interval.latest
    }

    static func core(
        _ configuration: HTTPTimeClient.Configuration = HTTPTimeClient.Configuration(),
        deadline: Duration = .seconds(10), proxy: HTTPProxy? = nil, certificatesUnchecked: Bool = false
    ) -> HTTPMeasurementCore {
        HTTPMeasurementCore(
            url: url, configuration: configuration, mapping: TimeMapping(wall: wall, monotonic: start),
            deadline: start + deadline, proxy: proxy, certificatesUnchecked: certificatesUnchecked)
    }

    /// Whatever the offset's fraction of a second and however the delay is split, the refined
    /// interval holds the truth and is at most the 15 ms target wide each side: one `Date` header
    /// gives a whole second, each probe timed at the server's second boundary halves it.
    @Test(arguments: [
        (Duration.zero, Duration.milliseconds(4), Duration.milliseconds(4)),
        (.milliseconds(300), .milliseconds(4), .milliseconds(4)),
        (.milliseconds(777), .milliseconds(1), .milliseconds(9)),
        (.milliseconds(-2_250), .milliseconds(9), .milliseconds(1)),
        (.seconds(3600) + .milliseconds(999), .microseconds(500), .microseconds(500)),
    ])
    func refinesTheDateHeaderToTheTargetAroundTheTruth(
        offset: Duration, outbound: Duration, inbound: Duration
    ) {
        var core = Self.core()
        let server = ScriptedServer(offset: offset, outbound: outbound, inbound: inbound)
        let (result, sent) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        let truth = server.truth(at: measurement.interval.instant)
        #expect(Self.holds(measurement.interval, truth), "\(measurement.interval) misses \(truth)")
        #expect(measurement.interval.radius <= .milliseconds(15))
        #expect(sent.count >= 2 && sent.count <= 8, "\(sent.count) requests")
        #expect(sent.first?.sendAt == nil, "the first request goes at once")
        #expect(measurement.requests.count == sent.count)
        #expect(measurement.kind == .dateHeader)
    }

    /// Every later request is timed to reach the server just after its clock crosses a whole
    /// second, per the estimate so far: the server reads its clock within the estimate's width of
    /// a boundary.
    @Test func laterRequestsReachTheServerAtItsSecondBoundary() {
        var core = Self.core()
        let server = ScriptedServer(offset: .milliseconds(431))
        let (result, sent) = Self.drive(&core, server)
        #expect((try? result.get()) != nil)
        for request in sent.dropFirst() {
            guard let sendAt = request.sendAt else {
                Issue.record("a later request was not timed")
                continue
            }
            let read = server.truth(at: sendAt + server.outbound)
            let fraction = read - UnixTime(seconds: read.seconds)
            // The first probe's estimate is a whole second wide: it lands anywhere in that second.
            // Later ones land within the shrinking interval of the boundary.
            #expect(fraction >= .zero && fraction < .seconds(1))
        }
        let last = try? #require(sent.last?.sendAt)
        if let last {
            let read = server.truth(at: last + server.outbound)
            let fraction = read - UnixTime(seconds: read.seconds)
            let fromBoundary = min(fraction, .seconds(1) - fraction)
            #expect(fromBoundary <= .milliseconds(40), "the last probe read \(fraction) past a second")
        }
    }

    /// A server that refuses `HEAD` with 405 is asked again with `GET`.
    @Test func aRefusedHeadIsRetriedWithGet() {
        var core = Self.core()
        guard case .send(let first) = core.next(now: Self.start) else {
            Issue.record("no first request")
            return
        }
        #expect(first.method == .head)
        let refused = HTTPExchangeOutcome(
            sent: Self.start, received: Self.start + .milliseconds(8),
            result: .response(HTTPResponseHead(statusCode: 405)))
        #expect(core.receive(refused) == nil)
        guard case .send(let second) = core.next(now: Self.start + .milliseconds(8)) else {
            Issue.record("no second request")
            return
        }
        #expect(second.method == .get)
        #expect(second.sendAt == nil, "no estimate yet: the GET goes at once")
    }

    /// 407 is a proxy's answer: with a proxy it names the proxy and its scheme; without one it is
    /// an origin's odd status.
    @Test func proxyAuthenticationIsAskedOnlyByAProxy() throws {
        let proxy = try HTTPProxy.parse("http://user:secret@proxy.example:3128").get()
        var server = ScriptedServer(offset: .zero)
        server.status = 407
        var viaProxy = Self.core(proxy: proxy)
        let (throughProxy, _) = Self.drive(&viaProxy, server)
        guard case .failure(let error) = throughProxy else {
            Issue.record("407 through a proxy did not fail")
            return
        }
        #expect(error.code == .proxyAuthenticationRequired)
        #expect(error.statusCode == 407)
        #expect(!error.reason.contains("secret"), "credentials in \(error.reason)")
        var direct = Self.core()
        let (straight, _) = Self.drive(&direct, server)
        guard case .failure(let other) = straight else {
            Issue.record("407 from the origin did not fail")
            return
        }
        #expect(other.code == .httpStatus)
    }

    /// A deadline already passed: the core fails with a timeout and sends nothing.
    @Test func aPassedDeadlineSendsNothing() {
        let core = Self.core(deadline: .zero)
        guard case .fail(let error) = core.next(now: Self.start) else {
            Issue.record("a request was planned past the deadline")
            return
        }
        #expect(error.code == .timeout)
    }

    /// The deadline ends the refinement with what it has, and no request is planned whose answer
    /// could not arrive in time.
    @Test func theDeadlineEndsRefiningWithWhatItHas() {
        var core = Self.core(deadline: .milliseconds(1_200))
        let server = ScriptedServer(
            offset: .milliseconds(120), outbound: .milliseconds(30), inbound: .milliseconds(30))
        let (result, sent) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        #expect(Self.holds(measurement.interval, server.truth(at: measurement.interval.instant)))
        for request in sent {
            let end = (request.sendAt ?? Self.start) + server.outbound + server.inbound
            #expect(end <= Self.start + .milliseconds(1_200))
        }
    }

    /// Two responses that cannot both be true end the measurement with their intervals named.
    @Test func disjointAnswersAreInconsistent() {
        var core = Self.core()
        let honest = ScriptedServer(offset: .milliseconds(500))
        guard case .send(let first) = core.next(now: Self.start) else { return }
        #expect(core.receive(honest.answer(first, now: Self.start)) == nil)
        let now = Self.start + .milliseconds(8)
        guard case .send(let second) = core.next(now: now) else {
            Issue.record("no second request")
            return
        }
        var liar = honest
        liar.offset = .seconds(10)
        let error = core.receive(liar.answer(second, now: now))
        #expect(error?.code == .inconsistentIntervals)
        #expect(core.records.count == 2)
    }

    /// With a timestamp header, requests are spaced by the minimum spacing (no boundary waits) and
    /// the configured number of samples ends the measurement.
    @Test func aTimestampHeaderTakesItsSamplesAtTheSpacing() {
        let configuration = HTTPTimeClient.Configuration(
            timestampHeader: "X-Server-Time", timestampUnit: .milliseconds, timestampSamples: 3)
        var core = Self.core(configuration)
        var server = ScriptedServer(offset: .milliseconds(1_234))
        server.fields = { read in
            [
                .init(
                    name: "X-Server-Time",
                    value: "\(read.seconds * 1000 + Int64(read.nanoseconds / 1_000_000))")
            ]
        }
        let (result, sent) = Self.drive(&core, server)
        guard case .success(let measurement) = result else {
            Issue.record("failed: \(result)")
            return
        }
        #expect(sent.count == 3)
        #expect(measurement.kind == .timestampHeader("X-Server-Time"))
        #expect(Self.holds(measurement.interval, server.truth(at: measurement.interval.instant)))
        // A millisecond timestamp and an 8 ms round trip: at most 4 ms + 1 ms each side.
        #expect(measurement.interval.radius <= .milliseconds(5) + .microseconds(10))
        for (earlier, later) in zip(sent, sent.dropFirst()) {
            let earlierEnd = (earlier.sendAt ?? Self.start) + server.outbound + server.inbound
            #expect(later.sendAt == earlierEnd + configuration.minimumSpacing)
        }
    }

    /// Checked without trusted time, a certificate the server's own answer says has expired is
    /// refused.
    @Test func aCertificateExpiredAtTheServersOwnTimeIsRefused() {
        var core = Self.core(certificatesUnchecked: true)
        let server = ScriptedServer(offset: .zero)
        guard case .send(let request) = core.next(now: Self.start) else { return }
        let answer = server.answer(request, now: Self.start)
        let expired = CertificateValidity(
            notBefore: Self.wall.seconds - 86_400 * 400, notAfter: Self.wall.seconds - 86_400,
            subject: "CN=old")
        let outcome = HTTPExchangeOutcome(
            sent: answer.sent, received: answer.received, result: answer.result, certificateChain: [expired])
        let error = core.receive(outcome)
        #expect(error?.code == .certificateRejected)
        #expect(error?.reason.contains("has expired") == true)
    }

    /// A transport failure ends the measurement with its code, and the request is recorded.
    @Test func aTransportFailureEndsItWithItsCode() {
        var core = Self.core()
        guard case .send = core.next(now: Self.start) else { return }
        let error = core.receive(
            HTTPExchangeOutcome(
                sent: Self.start, received: Self.start + .milliseconds(3),
                result: .failed(.transport, "connection refused")))
        #expect(error?.code == .transport)
        #expect(core.records.count == 1)
    }
}
