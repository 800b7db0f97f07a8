import NetClockPlatform
import TimeValues

/// One validated exchange with a server: the four timestamps and what follows from them.
///
/// - T1: our transmit time (local clock), T2: the server's receive time, T3: the server's transmit
///   time, T4: our receive time (local clock).
/// - offset θ = ((T2 − T1) + (T3 − T4)) / 2: true time minus local wall time.
/// - delay δ = (T4 − T1) − (T3 − T2): the round trip minus the server's processing time.
///
/// All arithmetic is on exact 32.32 differences (RFC 5905 §6), never on `Double` timestamps.
public struct NTPSample: Hashable, Sendable {
    /// The server address that answered.
    package var server: SocketAddress
    /// T1, our transmit time on the local wall-clock time line.
    public var t1: NTPTimestamp
    /// T2, the server's receive time.
    public var t2: NTPTimestamp
    /// T3, the server's transmit time.
    public var t3: NTPTimestamp
    /// T4, our receive time on the local wall-clock time line.
    public var t4: NTPTimestamp
    /// The monotonic instant of T4: where this sample anchors true time.
    public var receivedAt: MonotonicInstant
    /// T4 as a full-precision Unix time (local wall-clock time line).
    public var localReceiveTime: UnixTime
    /// The reply's header (stratum, leap, reference ID, root delay and dispersion, precision).
    public var reply: NTPPacket
    /// θ: true time minus local wall time.
    public var offset: Duration
    /// δ: the network round-trip delay.
    public var delay: Duration
    /// The local clock's timestamp resolution that was added to the error bound.
    public var localPrecision: Duration

    /// The frequency tolerance of both clocks during the exchange, in parts per million, that
    /// ``errorBound`` charges over the round trip.
    public var frequencyTolerancePPM: Double

    /// Computes a sample from the four timestamps.
    package init(
        server: SocketAddress, t1: NTPTimestamp, reply: NTPPacket, t4: NTPTimestamp,
        receivedAt: MonotonicInstant, localReceiveTime: UnixTime,
        localPrecision: Duration = .nanoseconds(1),
        frequencyTolerancePPM: Double = QueryOptions.defaultFrequencyTolerancePPM
    ) {
        self.frequencyTolerancePPM = QueryOptions.validTolerance(frequencyTolerancePPM)
        self.server = server
        self.t1 = t1
        self.t2 = reply.receiveTimestamp
        self.t3 = reply.transmitTimestamp
        self.t4 = t4
        self.reply = reply
        self.receivedAt = receivedAt
        self.localReceiveTime = localReceiveTime
        self.localPrecision = localPrecision
        let outbound = reply.receiveTimestamp - t1
        let inbound = reply.transmitTimestamp - t4
        self.offset = (outbound + inbound) / 2
        self.delay = (t4 - t1) - (reply.transmitTimestamp - reply.receiveTimestamp)
    }

    /// The error bound ε of `offset` at `receivedAt`: half the delay (the largest error an
    /// asymmetric path can cause), the server's root distance, both clocks' precision, and the
    /// frequency tolerance over the round trip. An honest server's true offset lies in
    /// [offset − ε, offset + ε].
    public var errorBound: Duration {
        let halfDelay = max(delay, .zero) / 2
        let drift = max(delay, .zero).drift(atPPM: frequencyTolerancePPM)
        return halfDelay + reply.rootDistance + reply.precision.duration + localPrecision + drift
    }

    /// The server's address and port, e.g. `192.0.2.1:123` or `[2001:db8::1]:123`.
    public var address: String { server.description }

    /// The true time at `receivedAt`, by this sample.
    public var trueTime: UnixTime { localReceiveTime + offset }

    /// What the sample proves: the true time at `receivedAt` is within ``errorBound`` of
    /// ``trueTime`` (when the server is honest).
    package var interval: TrueTimeInterval {
        TrueTimeInterval(time: trueTime, bound: errorBound, instant: receivedAt)
    }
}

extension NTPSample: CustomStringConvertible {
    /// A one-line summary, e.g. `offset +1.500076s delay 228.5µs ±222.0µs from 127.0.0.1:123
    /// (stratum 2)`.
    public var description: String {
        return
            "offset \(offset.signedFormattedSeconds) delay \(delay.formattedSeconds) ±\(errorBound.formattedSeconds) from \(address) (stratum \(reply.stratum))"
    }
}
