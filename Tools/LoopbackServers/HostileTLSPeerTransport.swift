import NetClockPlatform
import NetClockTLS
import NetClockTestSupport

/// The server side of a ``HostileTLSPeer`` connection as the ``ByteStream`` its honest TLS
/// engine runs over: receives as ``AcceptedByteStream`` does, and sends honestly, or one byte
/// per TCP segment (a trickle), or its first records honestly and then, in place of the next one,
/// the script's fault. Closing it leaves the socket open (the session holds it or closes it).
final class HostileTLSPeerTransport: ByteStream {
    /// How sends go out.
    enum Mode {
        /// As they come.
        case honest
        /// One byte per TCP segment, `pause` apart.
        case trickle(pause: Duration)
        /// The first `records` whole TLS records honestly, then `fault` in place of the rest.
        case faultAfter(records: Int, fault: HostileTLSPeerScript.Fault)
    }

    /// Thrown by `send` once the fault replaced the server's bytes: the honest handshake ends.
    static let faulted = TransportError.systemCall(
        operation: "send", errno: .interrupted, reason: "the hostile peer replaced the server's records")

    private let raw: AcceptedTCPConnection
    private let stop: WakeChannel
    private let receiver: AcceptedByteStream
    private let inflict: (HostileTLSPeerScript.Fault) -> Void
    /// How the next bytes go out.
    var mode: Mode
    /// The client, for messages.
    var peer: String { receiver.peer }
    /// The server's bytes of the current ``Mode/faultAfter(records:fault:)`` not yet sent.
    private var held: [UInt8] = []

    /// A transport over `raw` that ends its waits when `stop` is woken and carries out a fault with
    /// `inflict` (which returns once the client has gone).
    init(
        _ raw: AcceptedTCPConnection, stop: WakeChannel, mode: Mode,
        inflict: @escaping (HostileTLSPeerScript.Fault) -> Void
    ) {
        self.raw = raw
        self.stop = stop
        self.receiver = AcceptedByteStream(raw, stop: stop)
        self.mode = mode
        self.inflict = inflict
    }

    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(TransportError) -> Int {
        switch mode {
        case .honest:
            guard raw.sendAll(bytes) else { throw Self.faulted }
        case .trickle(let pause):
            try trickle(bytes, pause: pause)
        case .faultAfter(let records, let fault):
            held += bytes
            let ends = HostileTLSRecords.recordEnds(in: held)
            guard ends.count > records else { break }
            let honest = records > 0 ? ends[records - 1] : 0
            guard raw.sendAll(held[..<honest]) else { throw Self.faulted }
            let rest = Array(held[honest...])
            held = []
            if case .trickle(let pause) = fault {
                mode = .trickle(pause: pause)
                try trickle(rest[...], pause: pause)
            } else {
                inflict(fault)
                throw Self.faulted
            }
        }
        return bytes.count
    }

    func receive(maximum: Int, timeout: Duration) throws(TransportError) -> ReceivedBytes {
        try receiver.receive(maximum: maximum, timeout: timeout)
    }

    /// Leaves the socket open: the session decides when the client sees the end of the stream.
    func close() {}

    /// Sends `bytes` one per segment, `pause` apart; throws when the client went away or the peer
    /// is stopping.
    private func trickle(_ bytes: ArraySlice<UInt8>, pause: Duration) throws(TransportError) {
        raw.sendEachWriteAtOnce()
        for index in bytes.indices {
            guard raw.sendAll(bytes[index...index]), stop.sleep(for: pause) else { throw Self.faulted }
        }
    }
}
