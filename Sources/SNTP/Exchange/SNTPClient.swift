import NetClockPlatform

/// An SNTPv4 client (RFC 4330 / RFC 5905) that queries one server address with a burst of
/// requests and validates every reply.
///
/// Calls block the calling thread (waiting in `poll(2)` with a bounded timeout), so run them off the
/// cooperative thread pool; `NetworkClock` runs them on its bounded blocking pool for you.
public struct SNTPClient: Sendable {
    /// The monotonic clock on which T1 and T4 are taken.
    package var monotonic: any MonotonicClockSource
    /// The wall clock, read once per burst to map monotonic instants to wall time.
    package var wall: any WallClockSource
    /// Where request nonces come from.
    package var nonces: any NonceSource
    /// Told about every request sent and how it ended, for live progress; nil by default.
    package var progress: SyncProgressObserver?

    /// Creates a client that takes T1 and T4 from the kernel's boot-time clock (mapped to the wall
    /// clock once per burst) and request nonces from the kernel's CSPRNG.
    public init() {
        self.init(monotonic: BootTimeClock(), wall: SystemWallClock(), nonces: SystemNonceSource())
    }

    /// Creates a client with injected clocks and nonce source (tests simulate time with them).
    package init(
        monotonic: any MonotonicClockSource = BootTimeClock(),
        wall: any WallClockSource = SystemWallClock(),
        nonces: any NonceSource = SystemNonceSource()
    ) {
        self.monotonic = monotonic
        self.wall = wall
        self.nonces = nonces
    }

    /// Sends a burst of `options.samples` requests to `address`, spaced by `options.interval`, and
    /// returns what each one produced.
    ///
    /// The burst stops early on ICMP port unreachable and on a Kiss-o'-Death (the server asked us to
    /// stop or slow down). A `deadline` on the monotonic clock, when given, stops the burst from
    /// starting a request it could not finish in time.
    ///
    /// `isCancelled` is checked before each request and at least every ``CancellableWait/slice``
    /// while waiting (for a reply or between requests); once it returns true the burst ends with
    /// what it has, the exchange in flight recorded as timed out.
    ///
    /// With a `protection` (NTS), every request is protected by it and every reply must also pass
    /// its checks; an accepted Kiss-o'-Death or a request it cannot protect ends the burst.
    @available(*, noasync, message: "blocks in poll(2); run it on a thread of its own")
    package func query(
        _ address: SocketAddress, options: QueryOptions = QueryOptions(),
        deadline: MonotonicInstant? = nil, protection: (any PacketProtection)? = nil,
        isCancelled: () -> Bool = { false }
    ) -> ServerQueryResult {
        let mapping = TimeMapping(wall: wall, monotonic: monotonic)
        var result = ServerQueryResult(address: address, exchanges: [], mapping: mapping)
        let socket: UDPSocket
        do {
            socket = try UDPSocket(connectingTo: address)
        } catch {
            let record = ExchangeRecord(nonce: .zero, sentAt: mapping.wall, outcome: .failed(error))
            result.exchanges.append(record)
            progress?(.failed(address))
            return result
        }
        defer { socket.close() }
        var session = BurstSession()
        var lastSend: MonotonicInstant?
        for _ in 0..<options.samples {
            if isCancelled() { break }
            if let lastSend {
                let wait = options.interval - (monotonic.now() - lastSend)
                if let deadline, monotonic.now() + max(wait, .zero) >= deadline { break }
                guard CancellableWait.sleep(wait, isCancelled: isCancelled) else { break }
            }
            var timeout = options.timeout
            if let deadline {
                let left = deadline - monotonic.now()
                guard left > .zero else { break }
                timeout = min(timeout, left)
            }
            lastSend = monotonic.now()
            let record = exchange(
                on: socket, mapping: mapping, timeout: timeout, options: options, session: &session,
                protection: protection, isCancelled: isCancelled)
            result.exchanges.append(record)
            if let progress { SyncProgress.events(for: record, address: address).forEach(progress) }
            switch record.outcome {
            case .refused, .failed:
                return result
            case .rejected(.kissOfDeath(let code)) where code == .rate || code.isTerminal:
                return result
            case .rejected(.kissOfDeath) where protection != nil,
                .rejected(.unauthenticated) where protection != nil:
                // An authenticated kiss, or no request could be protected: nothing more to send.
                return result
            default:
                continue
            }
        }
        return result
    }

    /// One request and the wait for its reply.
    func exchange(
        on socket: UDPSocket, mapping: TimeMapping, timeout: Duration, options: QueryOptions,
        session: inout BurstSession, protection: (any PacketProtection)? = nil,
        isCancelled: () -> Bool = { false }
    ) -> ExchangeRecord {
        let nonce = session.newNonce(from: nonces)
        let header = NTPPacket.clientRequest(nonce: nonce)
        let request: [UInt8]
        do {
            request = try protection?.protect(header) ?? header.encoded()
        } catch {
            return ExchangeRecord(nonce: nonce, sentAt: mapping.wall, outcome: .rejected(error))
        }
        let sendInstant = monotonic.now()
        let t1Time = mapping.wallTime(at: sendInstant)
        var record = ExchangeRecord(nonce: nonce, sentAt: t1Time, outcome: .timedOut)
        do {
            try socket.send(request)
            progress?(.sent(socket.remote))
        } catch .connectionRefused {
            record.outcome = .refused
            return record
        } catch {
            record.outcome = .failed(error)
            return record
        }
        let deadline = sendInstant + timeout
        // The wait is also bounded on the kernel's boot-time clock, so that an injected monotonic
        // clock that does not advance cannot make the sliced wait below last forever.
        let realEnd = Syscalls.clockTime(.bootTime) + timeout
        while true {
            let remaining = min(deadline - monotonic.now(), realEnd - Syscalls.clockTime(.bootTime))
            guard remaining > .zero, !isCancelled() else { break }
            let datagram: [UInt8]
            do {
                // Bounded slices, so that cancellation is noticed within one.
                guard let received = try socket.receive(timeout: min(remaining, CancellableWait.slice))
                else { continue }
                datagram = received
            } catch .connectionRefused {
                record.outcome = .refused
                session.finish(nonce, answered: false)
                return record
            } catch {
                record.outcome = .failed(error)
                session.finish(nonce, answered: false)
                return record
            }
            let receiveInstant = monotonic.now()
            let t4Time = mapping.wallTime(at: receiveInstant)
            let packet: NTPPacket
            do {
                packet = try ReplyValidator.validate(
                    datagram, match: { session.match($0, current: nonce) }, policy: options.validation)
                try protection?.verify(reply: datagram)
            } catch .kissOfDeath(let code) {
                do {
                    try protection?.verify(kissOfDeath: datagram, code: code)
                } catch {
                    let decoded = try? NTPPacket(decoding: datagram)
                    record.reject(RejectedReply(reason: error, packet: decoded, receivedAt: t4Time))
                    continue
                }
                record.outcome = .rejected(.kissOfDeath(code))
                session.finish(nonce, answered: true)
                return record
            } catch {
                let decoded = try? NTPPacket(decoding: datagram)
                record.reject(RejectedReply(reason: error, packet: decoded, receivedAt: t4Time))
                continue
            }
            let sample = NTPSample(
                server: socket.remote, t1: NTPTimestamp(t1Time), reply: packet, t4: NTPTimestamp(t4Time),
                receivedAt: receiveInstant, localReceiveTime: t4Time,
                frequencyTolerancePPM: options.frequencyTolerancePPM)
            session.finish(nonce, answered: true)
            do {
                try ReplyValidator.validate(sample, policy: options.validation)
            } catch {
                record.outcome = .rejected(error)
                return record
            }
            record.outcome = .sample(sample)
            return record
        }
        session.finish(nonce, answered: false)
        record.outcome = .timedOut
        return record
    }
}

/// The nonces of one burst: which request is in flight, which were answered, which timed out.
struct BurstSession {
    private var answered: Set<UInt64> = []
    private var unanswered: Set<UInt64> = []

    /// A nonce not used before in this burst. A source that keeps repeating itself (only a broken
    /// test double could) gets 64 tries; after that its value is used as it is.
    mutating func newNonce(from source: any NonceSource) -> NTPTimestamp {
        var nonce = source.nextNonce()
        for _ in 0..<64 {
            let raw = nonce.rawValue
            if raw != 0 && !answered.contains(raw) && !unanswered.contains(raw) { break }
            nonce = source.nextNonce()
        }
        return nonce
    }

    func match(_ origin: NTPTimestamp, current: NTPTimestamp) -> ReplyValidator.RequestMatch {
        if origin == current { return .current }
        if answered.contains(origin.rawValue) { return .alreadyAnswered }
        if unanswered.contains(origin.rawValue) { return .stale }
        return .none
    }

    mutating func finish(_ nonce: NTPTimestamp, answered wasAnswered: Bool) {
        if wasAnswered {
            answered.insert(nonce.rawValue)
        } else {
            unanswered.insert(nonce.rawValue)
        }
    }
}
