import COpenSSL
import NetClockPlatform

/// One OpenSSL `SSL` on two memory BIOs, and the loop that moves its bytes to and from its
/// transport ``ByteStream`` until an operation finishes, its deadline passes, or its caller
/// abandons it. No round of a loop goes without progress (ThreatModel.md, "A hostile TLS peer").
/// Frees the `SSL` (and with it both BIOs) and closes the transport when released.
final class TLSEngine {
    /// The most bytes read from the transport at once: one TLS record with its header.
    private static let receiveChunk = 16 * 1024 + 512
    /// The longest single wait on the transport: a caller that abandons the connection gets its
    /// thread back within it.
    static let slice = CancellableWait.slice

    /// The context the `SSL` was made from, kept alive with it (its ALPN selection is read by
    /// OpenSSL's callback).
    private let context: TLSContext
    /// The `SSL`, which owns both BIOs (read by the session's accessors, TLSEngine+Session.swift).
    let ssl: OpaquePointer
    /// Bytes from the transport for OpenSSL to read (owned by `ssl`).
    private let incoming: OpaquePointer
    /// Bytes OpenSSL wrote for the transport (owned by `ssl`).
    private let outgoing: OpaquePointer
    /// The socket below.
    private let transport: any ByteStream<TransportError>
    /// The transport's peer, for messages.
    var peer: String { transport.peer }
    /// Whether this is the server's side.
    let isServer: Bool
    /// Whether the caller has given up: checked before every wait.
    private let isAbandoned: () -> Bool
    /// Bytes taken from `outgoing` that the transport has not accepted yet.
    private var unsent: [UInt8] = []
    /// Whether the peer's close_notify has arrived.
    private var peerClosed = false

    /// An `SSL` from `context` in client or server state, on fresh memory BIOs; every operation
    /// ends with `abandoned` once `isAbandoned` returns true.
    init(
        context: TLSContext, transport: any ByteStream<TransportError>, isServer: Bool,
        isAbandoned: @escaping () -> Bool = { false }
    ) throws(TLSError) {
        self.context = context
        self.transport = transport
        self.isServer = isServer
        self.isAbandoned = isAbandoned
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else {
            transport.close()
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_new failed"))
        }
        guard let incoming = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            transport.close()
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "BIO_new failed"))
        }
        guard let outgoing = BIO_new(BIO_s_mem()) else {
            BIO_free(incoming)
            SSL_free(ssl)
            transport.close()
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "BIO_new failed"))
        }
        // An empty incoming BIO means "wait for more", never the end of the stream.
        _ = netclock_BIO_set_mem_eof_return(incoming, -1)
        SSL_set_bio(ssl, incoming, outgoing)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        if isServer { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
    }

    deinit {
        SSL_free(ssl)
        transport.close()
    }

    /// The deadline `timeout` from now on the boot-time clock.
    static func deadline(after timeout: Duration) -> Duration {
        Syscalls.clockTime(.bootTime) + timeout
    }

    /// Runs the handshake until OpenSSL says it has finished (`SSL_is_init_finished`); on
    /// failure, the transport is closed.
    ///
    /// A close_notify from the peer (`SSL_ERROR_ZERO_RETURN`) ends it with `closed`: OpenSSL
    /// reports that as a clean end of `SSL_do_handshake`, but no session was established.
    func handshake(deadline: Duration) throws(TLSError) {
        do throws(TLSError) {
            while SSL_is_init_finished(ssl) != 1 {
                switch try perform("handshake", deadline: deadline, { SSL_do_handshake($0) }) {
                case .done:
                    // OpenSSL returns 1 only once the handshake is complete; anything else would
                    // make the next call repeat the same step.
                    guard SSL_is_init_finished(ssl) == 1 else {
                        throw TLSError(
                            .handshakeFailed,
                            "OpenSSL ended the handshake step, but the handshake is not complete")
                    }
                case .peerClosed:
                    throw TLSError(
                        .closed, "the peer closed the TLS session (close_notify) during the handshake")
                }
            }
        } catch {
            transport.close()
            throw error
        }
    }

    /// Writes all of `bytes`.
    ///
    /// Every call of `SSL_write_ex` either takes bytes or fails: a peer that closed the session
    /// (close_notify) ends it with `closed`, never with a retry that writes nothing.
    func write(_ bytes: [UInt8], deadline: Duration) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            var written = 0
            let step = try perform("write", deadline: deadline) { ssl in
                bytes[offset...].withUnsafeBytes { SSL_write_ex(ssl, $0.baseAddress, $0.count, &written) }
            }
            guard step == .done else {
                throw TLSError(
                    .closed, "the peer closed the TLS session (close_notify); nothing more can be sent")
            }
            guard written > 0, written <= bytes.count - offset else {
                throw TLSError(
                    .connectionFailed, "TLS write made no progress (OpenSSL took \(written) bytes)")
            }
            offset += written
        }
        try flush("write", deadline: deadline)
    }

    /// Reads at most `maximum` bytes; empty at the peer's close_notify. A read after that throws
    /// `closed`: nothing more will arrive, and a caller that asked again would otherwise get the
    /// same empty answer for ever.
    func read(maximum: Int, deadline: Duration) throws(TLSError) -> [UInt8] {
        guard !peerClosed else {
            throw TLSError(.closed, "the peer closed the TLS session (close_notify) earlier")
        }
        var buffer = [UInt8](repeating: 0, count: maximum)
        var count = 0
        let step = try perform("read", deadline: deadline) { ssl in
            buffer.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, maximum, &count) }
        }
        guard step == .done else { return [] }
        guard count > 0, count <= maximum else {
            throw TLSError(.connectionFailed, "TLS read made no progress (OpenSSL gave \(count) bytes)")
        }
        return Array(buffer.prefix(count))
    }

    /// Sends close_notify, best effort within `deadline` and at most one ``slice``, then closes the
    /// transport. Never waits once the caller has abandoned the connection.
    func shutdown(deadline: Duration) {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
        _ = try? flush("shutdown", deadline: min(deadline, Self.deadline(after: Self.slice)))
        transport.close()
    }

    /// How one ``perform(_:deadline:_:)`` ended.
    private enum Step: Equatable {
        /// The operation succeeded (returned a positive value).
        case done
        /// The peer sent close_notify (`SSL_ERROR_ZERO_RETURN`): nothing more will arrive.
        case peerClosed
    }

    /// Calls `operation` until it succeeds, feeding it the transport's bytes and sending what it
    /// writes.
    ///
    /// Every round either ends the call, receives at least one byte (``fill(_:deadline:)``), or
    /// sends at least one; a round that could do none of these throws. Every wait checks the
    /// deadline and the abandon flag first and lasts at most one ``slice``.
    private func perform(
        _ name: String, deadline: Duration, _ operation: (OpaquePointer) -> Int32
    ) throws(TLSError) -> Step {
        while true {
            try checkAbandoned(name)
            OpenSSLErrorQueue.clear()
            let result = operation(ssl)
            let error = SSL_get_error(ssl, result)
            if result > 0 {
                try flush(name, deadline: deadline)
                return .done
            }
            switch error {
            case SSL_ERROR_WANT_READ:
                try flush(name, deadline: deadline)
                try fill(name, deadline: deadline)
            case SSL_ERROR_WANT_WRITE:
                // The memory BIO takes any amount, so OpenSSL should never ask; if it does, only
                // bytes leaving for the transport let the next round differ from this one.
                guard try flush(name, deadline: deadline) > 0 else {
                    throw TLSError(
                        .connectionFailed,
                        "TLS \(name) made no progress (OpenSSL wants to write, nothing is pending)")
                }
            case SSL_ERROR_ZERO_RETURN:
                peerClosed = true
                return .peerClosed
            default:
                let failure = TLSFailure.classify(
                    ssl: ssl, operation: name, isServer: isServer, queued: OpenSSLErrorQueue.drain())
                // Let the alert OpenSSL wrote reach the peer, if it can.
                _ = try? flush(name, deadline: min(deadline, Self.deadline(after: Self.slice)))
                throw failure
            }
        }
    }

    /// Throws `abandoned` once the caller has given up on the connection.
    private func checkAbandoned(_ name: String) throws(TLSError) {
        if isAbandoned() { throw TLSError(.abandoned, "the \(name) was abandoned by its caller") }
    }

    /// Sends everything OpenSSL has written, by `deadline`; returns how many bytes went out.
    @discardableResult
    private func flush(_ name: String, deadline: Duration) throws(TLSError) -> Int {
        let pending = BIO_ctrl_pending(outgoing)
        if pending > 0 {
            var chunk = [UInt8](repeating: 0, count: pending)
            let read = BIO_read(outgoing, &chunk, Int32(clamping: pending))
            if read > 0 { unsent += chunk.prefix(Int(read)) }
        }
        var total = 0
        while !unsent.isEmpty {
            try checkAbandoned(name)
            let remaining = deadline - Syscalls.clockTime(.bootTime)
            guard remaining > .zero else { throw TLSError(.timedOut, "sending timed out during the \(name)") }
            let sent: Int
            do {
                // A send that finds no room waits for it, at most the timeout it is given.
                sent = try transport.send(unsent[...], timeout: min(remaining, Self.slice))
            } catch {
                throw TLSError(.transport, error.description)
            }
            guard (0...unsent.count).contains(sent) else {
                throw TLSError(.transport, "the transport reported \(sent) of \(unsent.count) bytes sent")
            }
            unsent.removeFirst(sent)
            total += sent
        }
        return total
    }

    /// Waits for the transport's next bytes, by `deadline`, and hands them to OpenSSL: returns
    /// only once at least one byte was handed over.
    private func fill(_ name: String, deadline: Duration) throws(TLSError) {
        while true {
            try checkAbandoned(name)
            let remaining = deadline - Syscalls.clockTime(.bootTime)
            guard remaining > .zero else { throw TLSError(.timedOut, "the \(name) did not finish in time") }
            let received: ReceivedBytes
            do {
                received = try transport.receive(
                    maximum: Self.receiveChunk, timeout: min(remaining, Self.slice))
            } catch {
                throw TLSError(.transport, error.description)
            }
            switch received {
            case .timedOut:
                continue
            case .endOfStream:
                throw TLSError(
                    .closed,
                    name == "read"
                        ? "the peer closed the connection without a TLS close_notify"
                        : "the peer closed the connection during the \(name)")
            case .bytes(let bytes):
                // Nothing received is no progress: wait again (within the deadline).
                guard !bytes.isEmpty else { continue }
                let written = BIO_write(incoming, bytes, Int32(clamping: bytes.count))
                guard written == Int32(clamping: bytes.count) else {
                    throw TLSError(.connectionFailed, OpenSSLErrorQueue.reason(or: "BIO_write failed"))
                }
                return
            }
        }
    }
}
