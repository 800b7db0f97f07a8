import NetClockPlatform
import TimeValues

/// An SNTPv4 client (RFC 4330 / RFC 5905) that queries one server address with a burst of
/// requests and validates every reply.
///
/// Calls block the calling thread (waiting in `poll(2)` with a bounded timeout), so run them off the
/// cooperative thread pool; `NetworkClock` runs them on its bounded blocking pool for you.
public struct SNTPClient: Sendable {
    /// The monotonic clock on which T1 and T4 are taken.
    package var monotonic: any MonotonicClock
    /// The wall clock, read once per burst to map monotonic instants to wall time.
    package var wall: any WallClock
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
        monotonic: any MonotonicClock = BootTimeClock(),
        wall: any WallClock = SystemWallClock(),
        nonces: any NonceSource = SystemNonceSource()
    ) {
        self.monotonic = monotonic
        self.wall = wall
        self.nonces = nonces
    }

    /// Sends a burst of `options.samples` requests to `address`, spaced by `options.interval`, and
    /// returns what each one produced: the ``NTPBurst`` core, driven by the ``DatagramLoop`` over a
    /// connected UDP socket.
    ///
    /// The burst stops early on ICMP port unreachable and on a Kiss-o'-Death (the server asked us to
    /// stop or slow down). A `deadline` on the monotonic clock, when given, stops the burst from
    /// starting a request it could not finish in time; `notBefore` delays its first request (the
    /// spacing since an earlier burst to the same address).
    ///
    /// `isCancelled` is checked at least every ``CancellableWait/slice`` while waiting (for a reply
    /// or between requests); once it returns true the burst ends with what it has, the exchange in
    /// flight recorded as timed out.
    ///
    /// With a `protection` (NTS), every request is protected by it and every reply must also pass
    /// its checks; an accepted Kiss-o'-Death or a request it cannot protect ends the burst.
    @available(*, noasync, message: "blocks in poll(2); run it on a thread of its own")
    package func query(
        _ address: SocketAddress, options: QueryOptions = QueryOptions(),
        deadline: MonotonicInstant? = nil, notBefore: MonotonicInstant? = nil,
        protection: (any PacketProtection)? = nil, isCancelled: () -> Bool = { false }
    ) -> ServerQueryResult {
        let mapping = TimeMapping(wall: wall, monotonic: monotonic)
        let socket: UDPSocket
        do {
            socket = try UDPSocket(connectingTo: address)
        } catch {
            progress?(.failed(address))
            let record = ExchangeRecord(nonce: .zero, sentAt: mapping.wall, outcome: .failed(error))
            return ServerQueryResult(address: address, exchanges: [record], mapping: mapping)
        }
        defer { socket.close() }
        var burst = NTPBurst(
            to: address, options: options, mapping: mapping, deadline: deadline, notBefore: notBefore,
            nonces: nonces, protection: protection, progress: progress)
        return DatagramLoop.run(&burst, over: socket, clock: monotonic, isCancelled: isCancelled)
            ?? burst.result
    }
}
