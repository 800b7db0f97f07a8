import NetClockPlatform
import TimeValues

/// One burst of SNTP requests to one server address, as a protocol core (``DatagramCore``): it
/// decides when each request goes out (``QueryOptions/interval`` apart, not before `notBefore`, none
/// at or after `deadline`), which datagram answers it (the request's nonce, then ``ReplyValidator``)
/// and when the burst ends (ICMP unreachable, a Kiss-o'-Death); the I/O loop only moves the bytes.
/// With a ``PacketProtection`` (NTS) every request and reply also goes through it.
///
/// Why a core: the Architecture article; what its checks stop: the ThreatModel article, "An
/// off-path attacker".
package struct NTPBurst: DatagramCore {
    /// The address the burst goes to (for the record and progress events).
    package let address: SocketAddress
    /// How many requests, how far apart, how long each waits.
    package let options: QueryOptions
    /// The wall-clock mapping every T1 and T4 of the burst is taken through.
    package let mapping: TimeMapping
    /// No request starts at or after this instant; nil for no limit.
    package let deadline: MonotonicInstant?
    /// The first request goes out no earlier than this (the spacing since the previous burst to
    /// the same address), unless waiting would pass the deadline.
    package let notBefore: MonotonicInstant?
    /// Where request nonces come from.
    package let nonces: any NonceSource
    /// The NTS transform, or nil for plain SNTP.
    package private(set) var protection: (any PacketProtection)?
    /// Told about every request sent and how it ended, as it happens.
    package let progress: SyncProgressObserver?

    /// What the burst is doing.
    private enum Phase {
        /// Waiting to send `request` at `at`.
        case scheduled(at: MonotonicInstant, request: Prepared)
        /// `request` went out (its record says when); its reply may arrive until `until`.
        case awaiting(Prepared, until: MonotonicInstant, record: ExchangeRecord)
        /// Done.
        case finished
    }

    /// A request ready to go: its nonce and wire bytes.
    private struct Prepared {
        var nonce: NTPTimestamp
        var bytes: [UInt8]
    }

    private var phase: Phase = .finished
    private var exchanges: [ExchangeRecord] = []
    private var answered: Set<UInt64> = []
    private var unanswered: Set<UInt64> = []
    private var lastSend: MonotonicInstant?
    private var isFinished = false

    /// A burst to `address`, not yet started.
    package init(
        to address: SocketAddress, options: QueryOptions, mapping: TimeMapping,
        deadline: MonotonicInstant? = nil, notBefore: MonotonicInstant? = nil,
        nonces: any NonceSource = SystemNonceSource(), protection: (any PacketProtection)? = nil,
        progress: SyncProgressObserver? = nil
    ) {
        self.address = address
        self.options = options
        self.mapping = mapping
        self.deadline = deadline
        self.notBefore = notBefore
        self.nonces = nonces
        self.protection = protection
        self.progress = progress
    }

    /// Every request sent so far and how it ended; once finished, the whole burst.
    package var outcome: ServerQueryResult? {
        isFinished ? result : nil
    }

    /// The record so far, finished or not.
    package var result: ServerQueryResult {
        ServerQueryResult(address: address, exchanges: exchanges, mapping: mapping)
    }

    // MARK: Events

    package mutating func start(at now: MonotonicInstant) -> CoreStep {
        var first = now
        // Etiquette's spacing, unless waiting for it would pass the deadline (then at once).
        if let notBefore, notBefore > now, deadline.map({ notBefore < $0 }) ?? true {
            first = notBefore
        }
        return schedule(at: first, now: now)
    }

    package mutating func handleTimer(at now: MonotonicInstant) -> CoreStep {
        switch phase {
        case .scheduled(let at, let request):
            guard now >= at else { return CoreStep(wake: at) }
            return send(request, at: now)
        case .awaiting(let request, let until, var record):
            guard now >= until else { return CoreStep(wake: until) }
            unanswered.insert(request.nonce.rawValue)
            record.outcome = .timedOut
            return finishExchange(record, at: now)
        case .finished:
            return .finished
        }
    }

    package mutating func handle(_ datagram: [UInt8], at now: MonotonicInstant) -> CoreStep {
        let t4 = mapping.wallTime(at: now)
        guard case .awaiting(let request, let until, var record) = phase else {
            // Between requests nothing is in flight: a late or spoofed datagram, counted against the
            // last exchange (it answers no request we wait for).
            rejectBetweenRequests(datagram, at: t4)
            return currentStep
        }
        let packet: NTPPacket
        do {
            packet = try ReplyValidator.validate(
                datagram,
                match: { [answered, unanswered] in
                    Self.match($0, current: request.nonce, answered, unanswered)
                },
                policy: options.validation)
            try protection?.verify(reply: datagram)
        } catch .kissOfDeath(let code) {
            do {
                try protection?.verify(kissOfDeath: datagram, code: code)
            } catch {
                return reject(datagram, error, at: t4, awaiting: request, until, &record)
            }
            answered.insert(request.nonce.rawValue)
            record.outcome = .rejected(.kissOfDeath(code))
            return finishExchange(record, at: now)
        } catch {
            return reject(datagram, error, at: t4, awaiting: request, until, &record)
        }
        answered.insert(request.nonce.rawValue)
        let sample = NTPSample(
            server: address, t1: NTPTimestamp(record.sentAt), reply: packet, t4: NTPTimestamp(t4),
            receivedAt: now, localReceiveTime: t4, frequencyTolerancePPM: options.frequencyTolerancePPM)
        do {
            try ReplyValidator.validate(sample, policy: options.validation)
            record.outcome = .sample(sample)
        } catch {
            record.outcome = .rejected(error)
        }
        return finishExchange(record, at: now)
    }

    package mutating func handle(failure: TransportError, at now: MonotonicInstant) -> CoreStep {
        var record: ExchangeRecord
        switch phase {
        case .awaiting(let request, _, let inFlight):
            unanswered.insert(request.nonce.rawValue)
            record = inFlight
        case .scheduled(_, let request):
            record = ExchangeRecord(
                nonce: request.nonce, sentAt: mapping.wallTime(at: now), outcome: .timedOut)
        case .finished:
            return .finished
        }
        if case .connectionRefused = failure {
            record.outcome = .refused
        } else {
            record.outcome = .failed(failure)
        }
        return finishExchange(record, at: now)
    }

    package mutating func cancel(at now: MonotonicInstant) {
        if case .awaiting(let request, _, var record) = phase {
            unanswered.insert(request.nonce.rawValue)
            record.outcome = .timedOut
            exchanges.append(record)
            report(record)
        }
        finish()
    }

    // MARK: Steps

    /// What the core waits for now.
    private var currentStep: CoreStep {
        switch phase {
        case .scheduled(let at, _): return CoreStep(wake: at)
        case .awaiting(_, let until, _): return CoreStep(wake: until)
        case .finished: return .finished
        }
    }

    /// Builds the next request and schedules it at `at`, or ends the burst when every request was
    /// sent, the deadline leaves no room, or no request can be protected.
    private mutating func schedule(at: MonotonicInstant, now: MonotonicInstant) -> CoreStep {
        guard exchanges.count < options.samples else { return finish() }
        if let deadline, at >= deadline { return finish() }
        let nonce = Self.newNonce(from: nonces, avoiding: answered, unanswered)
        let header = NTPPacket.clientRequest(nonce: nonce)
        do {
            let bytes = try protection?.protect(header) ?? header.encoded()
            phase = .scheduled(at: at, request: Prepared(nonce: nonce, bytes: bytes))
            return CoreStep(wake: at)
        } catch {
            // No request can be protected (no cookie left): nothing more to send.
            let record = ExchangeRecord(
                nonce: nonce, sentAt: mapping.wallTime(at: now), outcome: .rejected(error))
            exchanges.append(record)
            report(record)
            return finish()
        }
    }

    /// Sends `request` now and waits for its reply.
    private mutating func send(_ request: Prepared, at now: MonotonicInstant) -> CoreStep {
        var timeout = options.timeout
        if let deadline {
            let left = deadline - now
            guard left > .zero else { return finish() }
            timeout = min(timeout, left)
        }
        lastSend = now
        let record = ExchangeRecord(
            nonce: request.nonce, sentAt: mapping.wallTime(at: now), outcome: .timedOut)
        phase = .awaiting(request, until: now + timeout, record: record)
        progress?(.sent(address))
        return CoreStep(send: [request.bytes], wake: now + timeout)
    }

    /// Counts a rejected datagram and goes on waiting for the reply.
    private mutating func reject(
        _ datagram: [UInt8], _ reason: RejectionReason, at t4: UnixTime, awaiting request: Prepared,
        _ until: MonotonicInstant, _ record: inout ExchangeRecord
    ) -> CoreStep {
        record.reject(
            RejectedReply(reason: reason, packet: try? NTPPacket(decoding: datagram), receivedAt: t4))
        progress?(.rejected(address))
        phase = .awaiting(request, until: until, record: record)
        return CoreStep(wake: until)
    }

    /// Counts a datagram that arrived with no request in flight against the last exchange, with
    /// the reason it answers none (stale, duplicate, spoofed, or too short).
    private mutating func rejectBetweenRequests(_ datagram: [UInt8], at t4: UnixTime) {
        guard !exchanges.isEmpty else { return }
        let reason: RejectionReason
        do {
            _ = try ReplyValidator.validate(
                datagram,
                match: { [answered, unanswered] in Self.match($0, current: nil, answered, unanswered) },
                policy: options.validation)
            return
        } catch {
            reason = error
        }
        exchanges[exchanges.count - 1].reject(
            RejectedReply(reason: reason, packet: try? NTPPacket(decoding: datagram), receivedAt: t4))
        progress?(.rejected(address))
    }

    /// Records a finished exchange and decides what comes next.
    private mutating func finishExchange(_ record: ExchangeRecord, at now: MonotonicInstant) -> CoreStep {
        exchanges.append(record)
        report(record)
        switch record.outcome {
        case .refused, .failed:
            return finish()
        case .rejected(.kissOfDeath(let code)) where code == .rate || code.isTerminal:
            return finish()
        case .rejected(.kissOfDeath) where protection != nil,
            .rejected(.unauthenticated) where protection != nil:
            // An authenticated kiss, or no request could be protected: nothing more to send.
            return finish()
        default:
            let next = (lastSend ?? now) + options.interval
            return schedule(at: max(next, now), now: now)
        }
    }

    /// Ends the burst.
    @discardableResult
    private mutating func finish() -> CoreStep {
        phase = .finished
        isFinished = true
        return .finished
    }

    /// The outcome event of a finished exchange (each rejected datagram was reported as it came).
    private func report(_ record: ExchangeRecord) {
        guard let progress else { return }
        switch record.outcome {
        case .sample: progress(.answered(address))
        case .rejected: progress(.rejected(address))
        case .timedOut: progress(.timedOut(address))
        case .refused, .failed: progress(.failed(address))
        }
    }

    // MARK: Nonces

    /// A nonce from `nonces` not used before in this burst (neither `answered` nor `unanswered`).
    /// A source that keeps repeating itself (only a broken test double could) gets 64 tries; after
    /// that its value is used as it is. Static, so that a mutating caller never copies the burst
    /// to call it (Swift did, for a non-mutating method, before every request).
    private static func newNonce(
        from nonces: any NonceSource, avoiding answered: Set<UInt64>, _ unanswered: Set<UInt64>
    ) -> NTPTimestamp {
        var nonce = nonces.nextNonce()
        for _ in 0..<64 {
            let raw = nonce.rawValue
            if raw != 0 && !answered.contains(raw) && !unanswered.contains(raw) { break }
            nonce = nonces.nextNonce()
        }
        return nonce
    }

    /// How a datagram's origin relates to the burst's requests: `current`, the one in flight (if
    /// any), or one of those `answered` or left `unanswered`. Static, so that the closure checking
    /// a datagram holds the sets and never a copy of the burst.
    private static func match(
        _ origin: NTPTimestamp, current: NTPTimestamp?, _ answered: Set<UInt64>, _ unanswered: Set<UInt64>
    ) -> ReplyValidator.RequestMatch {
        if origin == current { return .current }
        if answered.contains(origin.rawValue) { return .alreadyAnswered }
        if unanswered.contains(origin.rawValue) { return .stale }
        return .none
    }
}
