import NetClockPlatform
import NetClockTLS
import TimeValues

/// NetworkClock's own minimal HTTP/1.1 client, for `http://` and `https://` URLs alike: one request
/// per connection, connected (through a proxy's `CONNECT` tunnel when the target has one, and
/// secured, through ``TLSConnection``) before a planned send instant, reading the response head
/// only, at most ``maximumHeadBytes``.
///
/// Every wait is a `poll(2)` of at most ``slice`` that checks the deadline and the abandon flag, and
/// each exchange runs on the ``BlockingPool``. Why it exists and what it does in full: the
/// DesignDecisions article, "Why its own TLS client".
struct HTTPHeadClient: Sendable {
    /// The most bytes the response head may have, its final empty line included.
    let maximumHeadBytes: Int
    /// The clock of the send and receive instants and of the deadlines.
    let clock: any MonotonicClock
    /// Whom `https://` servers' certificates must chain to.
    let trustRoots: TLSClientConfiguration.TrustRoots
    /// Against which time `https://` servers' certificates are checked.
    var certificateTime: CertificateTime = .wallClock

    /// The longest single wait.
    static let slice = CancellableWait.slice
    /// How long after the exchange's own end the caller's backstop timer fires.
    static let backstopGrace = Duration.milliseconds(250)

    /// Where exchanges run.
    let pool: BlockingPool

    init(
        maximumHeadBytes: Int, clock: any MonotonicClock,
        trustRoots: TLSClientConfiguration.TrustRoots = .system, pool: BlockingPool = .shared
    ) {
        self.maximumHeadBytes = max(64, maximumHeadBytes)
        self.clock = clock
        self.trustRoots = trustRoots
        self.pool = pool
    }

    /// The TLS settings of `https://` exchanges: TLS 1.2 or later, no ALPN (HTTP/1.1 is the
    /// default), the configured trust roots.
    var tlsConfiguration: TLSClientConfiguration {
        var configuration = TLSClientConfiguration(
            minimumVersion: .tls12, applicationProtocols: [], trustRoots: trustRoots)
        configuration.certificateTime = certificateTime
        return configuration
    }

    /// Performs one request on the blocking pool.
    ///
    /// - Parameters:
    ///   - sendAt: when to write the request (nil: as soon as connected). The connection is opened
    ///     (and its TLS handshake run) before, so that neither delays the send.
    ///   - timeout: how long the response may take after the send instant (and how long connecting
    ///     and the handshake may take at most).
    ///   - now: the caller's reading of ``clock`` when it planned the request (nil: read it here).
    func perform(
        _ request: HTTPRequestTarget, method: HTTPRequestRecord.Method, sendAt: MonotonicInstant?,
        timeout: Duration, now planned: MonotonicInstant? = nil
    ) async -> HTTPExchangeOutcome {
        let now = planned ?? clock.now()
        let end = max(now, sendAt ?? now) + timeout
        let client = self
        let reason = "no response from \(request.hostHeader) within \(timeout.formattedSeconds)"
        let batch = BlockingBatch<HTTPExchangeOutcome>(on: pool)
        batch.submit { abandoned in
            client.exchange(
                request, method: method, sendAt: sendAt, end: end, timeout: timeout,
                isAbandoned: { abandoned.isCancelled })
        }
        // The backstop: an exchange whose own deadlines failed to end it is abandoned here.
        if let outcome = await batch.wait(timeout: end - now + Self.backstopGrace)[0] { return outcome }
        let result: HTTPExchangeOutcome.Result =
            Task.isCancelled ? .cancelled : .failed(.timeout, reason)
        return HTTPExchangeOutcome(sent: now, received: clock.now(), result: result)
    }

    /// Performs one request on the calling thread, which it blocks until the outcome is known, `end`
    /// passes, or `isAbandoned` says to stop (checked at least every ``slice``).
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    func exchange(
        _ request: HTTPRequestTarget, method: HTTPRequestRecord.Method, sendAt: MonotonicInstant?,
        end: MonotonicInstant, timeout: Duration, isAbandoned: @escaping () -> Bool
    ) -> HTTPExchangeOutcome {
        var run = HTTPExchangeRun(
            client: self, request: request, end: end, timeout: timeout, isAbandoned: isAbandoned,
            sent: clock.now())
        var opened: (any ByteStream)?
        defer { opened?.close() }
        do throws(HTTPExchangeRun.Stop) {
            let stream = try run.open()
            opened = stream
            let reached = try run.wait(until: sendAt)
            try run.send(request.head(method: method), on: stream, at: reached)
            let (head, received, _) = try run.readHead(from: stream)
            return HTTPExchangeOutcome(
                sent: run.sent, received: received, result: .response(head),
                certificateChain: (stream as? TLSConnection)?.verifiedChain ?? [])
        } catch {
            var outcome = HTTPExchangeOutcome(
                sent: run.sent, received: error.noticed ?? clock.now(), result: error.result)
            outcome.statusCode = error.statusCode
            return outcome
        }
    }
}
