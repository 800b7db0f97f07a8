import Foundation
import NetClockTLS
import TimeBase

/// The state of one ``HTTPTimeClient`` measurement: the request loop, its timing and its records.
struct HTTPMeasurementRun {
    let url: URL
    let configuration: HTTPTimeClient.Configuration
    let transport: HTTPTransport
    let clock: any MonotonicClock
    let mapping: TimeMapping
    let deadline: MonotonicInstant

    private var refiner: HTTPDateRefiner
    private var records: [HTTPRequestRecord] = []
    private var method = HTTPRequestRecord.Method.head
    private var samples = 0

    init(
        url: URL, configuration: HTTPTimeClient.Configuration, transport: HTTPTransport,
        clock: any MonotonicClock, mapping: TimeMapping, deadline: MonotonicInstant
    ) {
        self.url = url
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.mapping = mapping
        self.deadline = deadline
        self.refiner = HTTPDateRefiner(
            frequencyTolerancePPM: configuration.frequencyTolerancePPM,
            targetHalfWidth: configuration.targetErrorBound)
    }

    /// The verified chain of the last `https://` handshake.
    private var certificateChain: [CertificateValidity] = []

    mutating func execute() async throws(HTTPTimeError) -> HTTPTimeMeasurement {
        // One clock reading plans each request (when to send it, how long it may take, and the
        // client's deadline): the measurement's start for the first, a fresh one for each later.
        var planned: MonotonicInstant? = mapping.monotonic
        while records.count < max(1, configuration.maximumRequests) && samples < configuration.sampleLimit {
            let now = planned ?? clock.now()
            planned = nil
            var sendAt: MonotonicInstant?
            if samples > 0 {
                let isPrecise = configuration.timestampHeader == nil && refiner.isPrecise
                guard !isPrecise, let next = nextSendInstant(now: now) else { break }
                sendAt = next
            }
            let timeout = min(configuration.requestTimeout, deadline - max(now, sendAt ?? now))
            guard timeout > .zero else {
                if samples > 0 { break }
                throw failure(.timeout, "the deadline passed before any response")
            }
            let outcome = await transport.perform(method: method, sendAt: sendAt, timeout: timeout, now: now)
            try handle(outcome)
        }
        guard let interval = refiner.interval else {
            throw failure(
                .httpStatus, "the server refused HEAD and the request budget left no room for GET",
                statusCode: records.last?.statusCode)
        }
        let roundTrip = records.filter { $0.interval != nil }.map(\.roundTrip).min() ?? .zero
        let kind: HTTPTimeMeasurement.Kind =
            configuration.timestampHeader.map { .timestampHeader($0.name) } ?? .dateHeader
        var measurement = HTTPTimeMeasurement(
            url: url, kind: kind, interval: interval, localTime: mapping.wallTime(at: interval.instant),
            roundTripDelay: roundTrip, requests: records)
        measurement.certificateChain = certificateChain
        return measurement
    }

    /// When to send the next request, planned at `now`, or nil when it would not complete before
    /// the deadline.
    private func nextSendInstant(now: MonotonicInstant) -> MonotonicInstant? {
        var earliest = now
        if let last = records.last { earliest = max(earliest, last.received + configuration.minimumSpacing) }
        let sendAt =
            configuration.timestampHeader == nil
            ? (refiner.nextSendInstant(after: earliest) ?? earliest) : earliest
        let expectedEnd = sendAt + refiner.expectedRoundTrip * 2 + .milliseconds(20)
        return expectedEnd <= deadline ? sendAt : nil
    }

    private mutating func handle(_ outcome: HTTPExchangeOutcome) throws(HTTPTimeError) {
        if !outcome.certificateChain.isEmpty { certificateChain = outcome.certificateChain }
        var record = HTTPRequestRecord(
            method: method, statusCode: nil, sent: outcome.sent, received: outcome.received,
            headerName: nil, headerValue: nil, interval: nil, combined: nil,
            localReceiveTime: mapping.wallTime(at: outcome.received))
        let response: HTTPResponseHead
        switch outcome.result {
        case .response(let head):
            response = head
        case .failed(let code, let reason):
            record.statusCode = outcome.statusCode
            records.append(record)
            throw failure(code, reason, statusCode: outcome.statusCode)
        case .cancelled:
            records.append(record)
            throw failure(.cancelled, "the measurement was cancelled")
        }
        let status = response.statusCode
        record.statusCode = status
        if method == .head && (status == 405 || status == 501) {
            records.append(record)
            method = .get
            return
        }
        if let proxy = transport.target.proxy,
            status == 407 || (status == 401 && response.value(forField: "Proxy-Authenticate") != nil)
        {
            // Only a proxy sends 407 or asks with Proxy-Authenticate (RFC 9110 §11.7.1, §15.5.8).
            records.append(record)
            let scheme =
                response.value(forField: "Proxy-Authenticate")?.split(separator: " ").first ?? "no scheme"
            let what = proxy.hasCredentials ? "refused the credentials given" : "asks for credentials"
            throw failure(
                .proxyAuthenticationRequired,
                "the proxy \(proxy) \(what) (HTTP \(status), Proxy-Authenticate: \(scheme.prefix(32)))",
                statusCode: status)
        }
        guard (200..<400).contains(status) else {
            records.append(record)
            let through = transport.target.proxy.map { " through the proxy \($0)" } ?? ""
            throw failure(
                .httpStatus, "\(method.rawValue) answered HTTP \(status)\(through)", statusCode: status)
        }
        let evidence: HTTPResponseEvidence
        do {
            evidence = try HTTPResponseEvidence.read(
                field: { response.value(forField: $0) },
                timestampHeader: configuration.timestampHeader, sent: outcome.sent,
                received: outcome.received, tolerancePPM: refiner.frequencyTolerancePPM,
                referenceYear: HTTPResponseEvidence.year(of: mapping.wall))
        } catch {
            records.append(record)
            throw failure(error.code, error.reason)
        }
        record.headerName = evidence.headerName
        record.headerValue = evidence.headerValue
        record.interval = evidence.interval
        if transport.client.certificateTime == .unchecked,
            let expired = Self.invalidThroughout(outcome.certificateChain, evidence.interval)
        {
            // Checked without the time: the server's own time says its certificate is not valid.
            records.append(record)
            let answer = evidence.interval.midpoint
            let state = Double(expired.notAfter) < answer.secondsDouble ? "has expired" : "is not yet valid"
            throw failure(
                .certificateRejected,
                "the certificate of \(url.host ?? "the server") \(state) at the time its own answer gives "
                    + "(\(ISO8601.format(answer, fractionDigits: 0)); checked without trusted time)")
        }
        let previous = refiner.interval
        guard let combined = refiner.add(evidence.interval, sent: outcome.sent, received: outcome.received)
        else {
            records.append(record)
            let earlier = previous.map { "\($0)" } ?? "the earlier ones"
            throw failure(
                .inconsistentIntervals,
                "request \(records.count) gave \(evidence.interval), disjoint from \(earlier)")
        }
        record.combined = combined
        records.append(record)
        samples += 1
    }

    /// The first certificate of `chain` that is valid at no time `interval` allows.
    private static func invalidThroughout(_ chain: [CertificateValidity], _ interval: TrueTimeInterval)
        -> CertificateValidity?
    {
        let (earliest, latest) = (interval.earliest.secondsDouble, interval.latest.secondsDouble)
        return chain.first { Double($0.notAfter) + 1 < earliest || latest < Double($0.notBefore) }
    }

    private func failure(
        _ code: HTTPTimeError.Code, _ reason: String, statusCode: Int? = nil
    ) -> HTTPTimeError {
        HTTPTimeError(code, reason, statusCode: statusCode, requests: records)
    }
}
