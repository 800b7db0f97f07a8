#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockTLS
import TimeValues

/// The decisions of one HTTP(S) time measurement, without any I/O, as ``NTPBurst`` is for NTP:
/// driven by the monotonic time and by each request's outcome, it says what to do next (send a
/// request at an instant with a timeout, finish with a measurement, or fail), reads what each
/// response proves (``HTTPResponseEvidence``), refines the time (``HTTPDateRefiner``) and keeps
/// the records. ``HTTPMeasurementRun`` performs what it asks for.
package struct HTTPMeasurementCore: Sendable {
    /// What to do next.
    package enum Action: Sendable {
        /// Perform this request, then report its outcome with ``receive(_:)``.
        case send(Request)
        /// The measurement is complete.
        case finish(HTTPTimeMeasurement)
        /// The measurement failed.
        case fail(HTTPTimeError)
    }

    /// One request to perform.
    package struct Request: Sendable, Hashable {
        package var method: HTTPRequestRecord.Method
        /// When to send it (nil: as soon as connected).
        package var sendAt: MonotonicInstant?
        /// How long its response may take.
        package var timeout: Duration
    }

    package let url: URL
    package let configuration: HTTPTimeClient.Configuration
    package let mapping: TimeMapping
    package let deadline: MonotonicInstant
    /// The proxy the requests go through, if any: only it may ask for proxy credentials.
    package let proxy: HTTPProxy?
    /// Whether `https://` certificates are checked without the time, so the server's own answer
    /// must at least not contradict them.
    package let certificatesUnchecked: Bool

    private var refiner: HTTPDateRefiner
    package private(set) var records: [HTTPRequestRecord] = []
    private var method = HTTPRequestRecord.Method.head
    private var samples = 0
    /// The verified chain of the last `https://` handshake.
    private var certificateChain: [CertificateValidity] = []

    package init(
        url: URL, configuration: HTTPTimeClient.Configuration, mapping: TimeMapping,
        deadline: MonotonicInstant,
        proxy: HTTPProxy? = nil, certificatesUnchecked: Bool = false
    ) {
        self.url = url
        self.configuration = configuration
        self.mapping = mapping
        self.deadline = deadline
        self.proxy = proxy
        self.certificatesUnchecked = certificatesUnchecked
        self.refiner = HTTPDateRefiner(
            frequencyTolerancePPM: configuration.frequencyTolerancePPM,
            targetHalfWidth: configuration.targetErrorBound)
    }

    /// What to do next, planned at `now` (the measurement's start for the first request).
    package func next(now: MonotonicInstant) -> Action {
        guard records.count < max(1, configuration.maximumRequests) && samples < configuration.sampleLimit
        else {
            return finish()
        }
        var sendAt: MonotonicInstant?
        if samples > 0 {
            let isPrecise = configuration.timestampHeader == nil && refiner.isPrecise
            guard !isPrecise, let next = nextSendInstant(now: now) else { return finish() }
            sendAt = next
        }
        let timeout = min(configuration.requestTimeout, deadline - max(now, sendAt ?? now))
        guard timeout > .zero else {
            if samples > 0 { return finish() }
            return .fail(failure(.timeout, "the deadline passed before any response"))
        }
        return .send(Request(method: method, sendAt: sendAt, timeout: timeout))
    }

    /// The measurement from the responses so far.
    private func finish() -> Action {
        guard let interval = refiner.interval else {
            return .fail(
                failure(
                    .httpStatus, "the server refused HEAD and the request budget left no room for GET",
                    statusCode: records.last?.statusCode))
        }
        let roundTrip = records.filter { $0.interval != nil }.map(\.roundTrip).min() ?? .zero
        let kind: HTTPTimeMeasurement.Kind =
            configuration.timestampHeader.map { .timestampHeader($0.name) } ?? .dateHeader
        var measurement = HTTPTimeMeasurement(
            url: url, kind: kind, interval: interval, localTime: mapping.wallTime(at: interval.instant),
            roundTripDelay: roundTrip, requests: records)
        measurement.certificateChain = certificateChain
        return .finish(measurement)
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

    /// Takes the outcome of the request ``next(now:)`` asked for; returns why the measurement
    /// fails, if it does.
    package mutating func receive(_ outcome: HTTPExchangeOutcome) -> HTTPTimeError? {
        do {
            try handle(outcome)
            return nil
        } catch {
            return error
        }
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
        if let proxy,
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
            let through = proxy.map { " through the proxy \($0)" } ?? ""
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
        if certificatesUnchecked,
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
        return chain.first { !$0.isValid(somewhereFrom: earliest, to: latest) }
    }

    private func failure(
        _ code: HTTPTimeError.Code, _ reason: String, statusCode: Int? = nil
    ) -> HTTPTimeError {
        HTTPTimeError(code, reason, statusCode: statusCode, requests: records)
    }
}
