import COpenSSL
import NetClockPlatform

/// One OpenSSL `SSL` on two memory BIOs, and the loop that moves its bytes to and from a
/// ``TLSTransport`` until an operation finishes or its deadline passes.
///
/// Frees the `SSL` (and with it both BIOs) and closes the transport when released.
final class TLSEngine {
    /// The most bytes read from the transport at once: one TLS record with its header.
    private static let receiveChunk = 16 * 1024 + 512

    /// The context the `SSL` was made from, kept alive with it (its ALPN selection is read by
    /// OpenSSL's callback).
    private let context: TLSContext
    /// The `SSL`, which owns both BIOs.
    private let ssl: OpaquePointer
    /// Bytes from the transport for OpenSSL to read (owned by `ssl`).
    private let incoming: OpaquePointer
    /// Bytes OpenSSL wrote for the transport (owned by `ssl`).
    private let outgoing: OpaquePointer
    /// The socket below.
    private let transport: any TLSTransport
    /// Whether this is the server's side.
    private let isServer: Bool
    /// Bytes taken from `outgoing` that the transport has not accepted yet.
    private var unsent: [UInt8] = []

    /// An `SSL` from `context` in client or server state, on fresh memory BIOs.
    init(context: TLSContext, transport: any TLSTransport, isServer: Bool) throws(TLSError) {
        self.context = context
        self.transport = transport
        self.isServer = isServer
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

    /// Sets the name or address the server's certificate must carry, and SNI for a name.
    func expectPeer(named name: String) throws(TLSError) {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw TLSError(.configuration, "the server name must be a non-empty string without NUL bytes")
        }
        OpenSSLErrorQueue.clear()
        guard let parameters = SSL_get0_param(ssl) else {
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_get0_param failed"))
        }
        if X509_VERIFY_PARAM_set1_ip_asc(parameters, name) == 1 { return }
        // Not an address: a host name, checked against the certificate and sent as SNI.
        OpenSSLErrorQueue.clear()
        guard SSL_set1_host(ssl, name) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "cannot check for the host name \(name)"))
        }
        guard netclock_SSL_set_tlsext_host_name(ssl, name) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "cannot send the server name \(name)"))
        }
    }

    /// Runs the handshake to its end; on failure, the transport is closed.
    func handshake(deadline: Duration) throws(TLSError) {
        do {
            _ = try perform("handshake", deadline: deadline) { SSL_do_handshake($0) }
        } catch {
            transport.close()
            throw error
        }
    }

    /// The ALPN protocol agreed on, if any.
    var negotiatedProtocol: String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    /// On a server, the SNI host name the client sent.
    var requestedServerName: String? {
        guard isServer, let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }

    /// The protocol version agreed on.
    var protocolVersion: TLSProtocolVersion { TLSProtocolVersion(rawValue: SSL_version(ssl)) }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8], deadline: Duration) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            var written = 0
            _ = try perform("write", deadline: deadline) { ssl in
                bytes[offset...].withUnsafeBytes { SSL_write_ex(ssl, $0.baseAddress, $0.count, &written) }
            }
            offset += written
        }
        try flush(deadline: deadline)
    }

    /// Reads at most `maximum` bytes; empty at a close_notify.
    func read(maximum: Int, deadline: Duration) throws(TLSError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        var count = 0
        let result = try perform("read", deadline: deadline) { ssl in
            buffer.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, maximum, &count) }
        }
        return result > 0 ? Array(buffer.prefix(count)) : []
    }

    /// `SSL_export_keying_material`.
    func exportKeyingMaterial(label: String, context: [UInt8]?, length: Int) throws(TLSError) -> [UInt8] {
        guard (1...4096).contains(length) else {
            throw TLSError(.keyExport, "cannot export \(length) bytes (1 to 4096)")
        }
        let labelBytes = Array(label.utf8)
        var output = [UInt8](repeating: 0, count: length)
        OpenSSLErrorQueue.clear()
        let result = output.withUnsafeMutableBufferPointer { out in
            SSL_export_keying_material(
                ssl, out.baseAddress, length, label, labelBytes.count, context ?? [], context?.count ?? 0,
                context == nil ? 0 : 1)
        }
        guard result == 1 else {
            throw TLSError(.keyExport, OpenSSLErrorQueue.reason(or: "SSL_export_keying_material failed"))
        }
        return output
    }

    /// Sends close_notify, best effort within `deadline`, then closes the transport.
    func shutdown(deadline: Duration) {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
        try? flush(deadline: deadline)
        transport.close()
    }

    /// Calls `operation` until it succeeds, feeding it the transport's bytes and sending what it
    /// writes. Returns its positive result, or 0 when the peer sent close_notify.
    private func perform(
        _ name: String, deadline: Duration, _ operation: (OpaquePointer) -> Int32
    ) throws(TLSError) -> Int32 {
        while true {
            OpenSSLErrorQueue.clear()
            let result = operation(ssl)
            let error = SSL_get_error(ssl, result)
            if result > 0 {
                try flush(deadline: deadline)
                return result
            }
            switch error {
            case SSL_ERROR_WANT_READ:
                try flush(deadline: deadline)
                try fill(name, deadline: deadline)
            case SSL_ERROR_WANT_WRITE:
                try flush(deadline: deadline)
            case SSL_ERROR_ZERO_RETURN:
                return 0
            default:
                let failure = TLSFailure.classify(
                    ssl: ssl, operation: name, isServer: isServer, queued: OpenSSLErrorQueue.drain())
                // Let the alert OpenSSL wrote reach the peer, if it can.
                try? flush(deadline: min(deadline, TLSEngine.deadline(after: .milliseconds(50))))
                throw failure
            }
        }
    }

    /// Sends everything OpenSSL has written, by `deadline`.
    private func flush(deadline: Duration) throws(TLSError) {
        let pending = BIO_ctrl_pending(outgoing)
        if pending > 0 {
            var chunk = [UInt8](repeating: 0, count: pending)
            let read = BIO_read(outgoing, &chunk, Int32(clamping: pending))
            if read > 0 { unsent += chunk.prefix(Int(read)) }
        }
        while !unsent.isEmpty {
            let remaining = deadline - Syscalls.clockTime(.bootTime)
            guard remaining > .zero else { throw TLSError(.timedOut, "sending timed out") }
            let sent: Int
            do {
                sent = try transport.send(unsent[...], timeout: remaining)
            } catch {
                throw TLSError(.transport, error.description)
            }
            unsent.removeFirst(sent)
        }
    }

    /// Waits for the transport's next bytes, by `deadline`, and hands them to OpenSSL.
    private func fill(_ name: String, deadline: Duration) throws(TLSError) {
        while true {
            let remaining = deadline - Syscalls.clockTime(.bootTime)
            guard remaining > .zero else { throw TLSError(.timedOut, "the \(name) did not finish in time") }
            let received: TCPConnection.Received
            do {
                received = try transport.receive(maximum: Self.receiveChunk, timeout: remaining)
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
                let written = BIO_write(incoming, bytes, Int32(bytes.count))
                guard written == Int32(bytes.count) else {
                    throw TLSError(.connectionFailed, OpenSSLErrorQueue.reason(or: "BIO_write failed"))
                }
                return
            }
        }
    }
}
