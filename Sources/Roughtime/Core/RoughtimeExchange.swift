import NetClockPlatform
import TimeValues

/// One Roughtime request to one server and the wait for its valid reply, as a ``DatagramCore``:
/// told the time and the datagrams, it answers what to send and when to wake.
///
/// ``start(at:)`` sends the padded request and asks to be woken at the first retransmission (or the
/// deadline). A datagram that fails verification is refused with its reason
/// (``RoughtimeRejections``) and the wait goes on: a spoofed or replayed datagram cannot end the
/// exchange, only the server's valid reply or the deadline can. Retransmissions repeat the same
/// request (same nonce) after 1 s, then 1.5 times longer each time (RFC 10049 §5's backoff),
/// until the deadline.
package struct RoughtimeExchange: DatagramCore {
    /// How long to wait and when to repeat the request.
    package struct Timing: Hashable, Sendable {
        /// How long the exchange may take from the first transmission. Default 3 s.
        package var timeout: Duration = .seconds(3)
        /// The first retransmission's delay; nil never retransmits. Default 1 s.
        package var firstRetransmission: Duration? = .seconds(1)
        /// The factor each later delay grows by. Default 1.5.
        package var backoff: Double = 1.5

        /// The defaults.
        package init() {}

        /// A timeout and retransmission schedule.
        package init(timeout: Duration, firstRetransmission: Duration? = .seconds(1), backoff: Double = 1.5) {
            self.timeout = timeout
            self.firstRetransmission = firstRetransmission
            self.backoff = backoff
        }
    }

    /// What the exchange ended with.
    package struct Outcome: Hashable, Sendable {
        /// The valid reply and its timing, or why there is none: `timed_out` (no reply at all), the
        /// first rejection's error when replies came but none was valid, `transport`, `cancelled`.
        package var result: Result<RoughtimeMeasurement, RoughtimeError>
        /// Every refused reply.
        package var rejections: RoughtimeRejections
        /// How many times the request was sent.
        package var transmissions: Int
    }

    /// The request.
    package let request: RoughtimeRequest
    /// The long-term key replies must be signed under.
    package let publicKey: [UInt8]
    /// The timing.
    package let timing: Timing

    /// The result, once finished.
    package private(set) var outcome: Outcome?
    /// The refused replies so far.
    package private(set) var rejections = RoughtimeRejections()
    /// How many times the request has been sent.
    package private(set) var transmissions = 0
    private var firstSent: MonotonicInstant?
    private var deadline: MonotonicInstant?
    private var nextRetransmission: MonotonicInstant?
    private var retransmissionDelay: Duration?

    /// An exchange of `request` with the server whose long-term key is `publicKey`.
    package init(request: RoughtimeRequest, publicKey: [UInt8], timing: Timing = Timing()) {
        self.request = request
        self.publicKey = publicKey
        self.timing = timing
    }

    /// Sends the request; wakes at the first retransmission or the deadline.
    package mutating func start(at now: MonotonicInstant) -> CoreStep {
        firstSent = now
        deadline = now + max(timing.timeout, .zero)
        retransmissionDelay = timing.firstRetransmission
        nextRetransmission = retransmissionDelay.map { now + $0 }
        transmissions = 1
        return CoreStep(send: [request.bytes], wake: nextWake)
    }

    /// Verifies the datagram: a valid reply finishes the exchange; anything else is refused with
    /// its reason and the wait goes on.
    package mutating func handle(_ datagram: [UInt8], at now: MonotonicInstant) -> CoreStep {
        guard outcome == nil, let sentAt = firstSent else { return .finished }
        do {
            let response = try RoughtimeResponse(verifying: datagram, for: request, publicKey: publicKey)
            let measurement = RoughtimeMeasurement(
                request: request, response: response, sentAt: sentAt, receivedAt: max(now, sentAt))
            finish(.success(measurement))
            return .finished
        } catch {
            rejections.record(error)
            return CoreStep(wake: nextWake)
        }
    }

    /// At the deadline, finishes (timed out, or refused with the first rejection's reason); before
    /// it, sends the request again and schedules the next retransmission.
    package mutating func handleTimer(at now: MonotonicInstant) -> CoreStep {
        guard outcome == nil, let deadline else { return .finished }
        if now >= deadline {
            let timeout = timing.timeout.formattedSeconds
            if let reason = rejections.first.first {
                finish(
                    .failure(
                        RoughtimeError(
                            reason.code, "\(reason.reason) (every reply within \(timeout) refused)")))
            } else {
                finish(
                    .failure(RoughtimeError(.timedOut, "no reply within \(timeout) (\(transmissions) sent)")))
            }
            return .finished
        }
        guard let due = nextRetransmission, now >= due, let delay = retransmissionDelay else {
            return CoreStep(wake: nextWake)
        }
        transmissions += 1
        let next = delay * max(timing.backoff, 1)
        retransmissionDelay = next
        nextRetransmission = now + next
        return CoreStep(send: [request.bytes], wake: nextWake)
    }

    /// A send or receive failed (ICMP port unreachable: nothing listens there): the exchange ends.
    package mutating func handle(failure: TransportError, at now: MonotonicInstant) -> CoreStep {
        guard outcome == nil else { return .finished }
        finish(.failure(RoughtimeError(.transport, failure.description)))
        return .finished
    }

    /// The caller gave up.
    package mutating func cancel(at now: MonotonicInstant) {
        guard outcome == nil else { return }
        finish(.failure(RoughtimeError(.cancelled, "cancelled")))
    }

    /// The earlier of the next retransmission and the deadline.
    private var nextWake: MonotonicInstant? {
        guard let deadline else { return nil }
        guard let next = nextRetransmission else { return deadline }
        return min(next, deadline)
    }

    private mutating func finish(_ result: Result<RoughtimeMeasurement, RoughtimeError>) {
        outcome = Outcome(result: result, rejections: rejections, transmissions: transmissions)
    }
}
