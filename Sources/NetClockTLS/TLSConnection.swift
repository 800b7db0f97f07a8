import COpenSSL
import NetClockPlatform

/// A TLS connection over a transport ``ByteStream`` (a connected TCP socket), as client or (for the
/// loopback test servers) server; itself a ``ByteStream`` of ``TLSError``. OpenSSL works on memory
/// BIOs that the connection fills and drains, so every call is bounded by its `timeout` and ends
/// within one ``CancellableWait/slice`` once abandoned. It owns the transport and every OpenSSL
/// object (freed by ``close(timeout:)`` or on release); use it on one thread at a time. What holds
/// against a hostile peer: the ThreatModel article, "A hostile TLS peer".
package final class TLSConnection {
    /// What one ``read(maximum:timeout:)`` produced.
    package enum Received: Hashable, Sendable {
        /// Between 1 and `maximum` bytes of application data.
        case bytes([UInt8])
        /// The peer closed the TLS session properly (close_notify); nothing more will arrive.
        case endOfStream
    }

    /// The `SSL`, its BIOs and the transport.
    private let engine: TLSEngine
    /// Whether the connection is closed.
    private var isClosed = false

    /// A connection whose handshake `engine` has finished.
    private init(engine: TLSEngine) {
        self.engine = engine
    }

    /// Runs a client handshake over `transport` with `serverName` and returns the connection.
    ///
    /// `serverName` is a host name (sent as SNI and checked against the certificate's DNS names) or
    /// an IPv4 or IPv6 address without brackets (checked against its IP addresses; no SNI).
    /// `isAbandoned` is asked before every wait of this handshake and of every later read, write
    /// and close: once it returns true they end with `abandoned` (a close sends nothing more).
    /// - Throws: ``TLSError`` with code `configuration`, `certificateVerificationFailed`,
    ///   `protocolVersion`, `handshakeFailed`, `timedOut` (after `timeout`), `closed` (also when
    ///   the peer answered with close_notify), `abandoned` or `transport`. The transport is closed
    ///   when the handshake fails.
    package static func connect(
        over transport: any ByteStream<TransportError>, serverName: String,
        configuration: TLSClientConfiguration,
        timeout: Duration, isAbandoned: @escaping () -> Bool = { false }
    ) throws(TLSError) -> TLSConnection {
        let deadline = TLSEngine.deadline(after: timeout)
        let context: TLSContext
        do {
            context = try TLSContext.client(configuration)
        } catch {
            transport.close()
            throw error
        }
        let engine = try TLSEngine(
            context: context, transport: transport, isServer: false, isAbandoned: isAbandoned)
        try engine.expectPeer(named: serverName)
        do {
            try configuration.certificateTime.apply(to: engine.ssl)
        } catch {
            transport.close()
            throw error
        }
        try engine.handshake(deadline: deadline)
        return TLSConnection(engine: engine)
    }

    /// Runs a server handshake over `transport` with a server context made by its caller (the
    /// loopback test servers make theirs in NetClockTestSupport) and returns the connection;
    /// `isAbandoned` as for ``connect(over:serverName:configuration:timeout:isAbandoned:)``.
    /// - Throws: ``TLSError`` with code `configuration`, `protocolVersion`, `handshakeFailed`,
    ///   `timedOut` (after `timeout`), `closed`, `abandoned` or `transport`. The transport is
    ///   closed when the handshake fails.
    package static func serverHandshake(
        over transport: any ByteStream<TransportError>, context: TLSContext, timeout: Duration,
        isAbandoned: @escaping () -> Bool = { false }
    ) throws(TLSError) -> TLSConnection {
        let deadline = TLSEngine.deadline(after: timeout)
        let engine = try TLSEngine(
            context: context, transport: transport, isServer: true, isAbandoned: isAbandoned)
        try engine.handshake(deadline: deadline)
        return TLSConnection(engine: engine)
    }

    /// The application protocol both sides agreed on (ALPN), or nil when none was: a client that
    /// requires one must refuse the connection then.
    package var negotiatedProtocol: String? { engine.negotiatedProtocol }

    /// The validity periods of the certificate chain the handshake verified, leaf first (checked
    /// against the configuration's ``TLSClientConfiguration/certificateTime``: with
    /// ``CertificateTime/unchecked``, it is the caller's to check them against the time it obtains).
    package var verifiedChain: [CertificateValidity] { CertificateValidity.verifiedChain(of: engine.ssl) }

    /// The protocol version agreed on.
    package var protocolVersion: TLSProtocolVersion { engine.protocolVersion }

    /// The connection's `SSL`, for reading what the session agreed on that this type does not
    /// expose (a test server reads the client's SNI from it). Valid while the connection lives;
    /// never free it.
    package var ssl: OpaquePointer { engine.ssl }

    /// Writes all of `bytes` within `timeout`.
    /// - Throws: ``TLSError`` with code `timedOut`, `closed` (also after the peer's close_notify),
    ///   `connectionFailed`, `abandoned` or `transport`.
    package func write(_ bytes: [UInt8], timeout: Duration) throws(TLSError) {
        try checkOpen()
        try engine.write(bytes, deadline: TLSEngine.deadline(after: timeout))
    }

    /// Waits up to `timeout` for application data and returns at most `maximum` (at least 1) bytes,
    /// or `.endOfStream` once at the peer's close_notify.
    /// - Throws: ``TLSError`` with code `timedOut`, `closed` (when the peer closed the socket
    ///   without close_notify, and on a read after `.endOfStream`), `connectionFailed`, `abandoned`
    ///   or `transport`.
    package func read(maximum: Int, timeout: Duration) throws(TLSError) -> Received {
        try checkOpen()
        let bytes = try engine.read(maximum: max(1, maximum), deadline: TLSEngine.deadline(after: timeout))
        return bytes.isEmpty ? .endOfStream : .bytes(bytes)
    }

    /// Keying material exported from the session (RFC 5705 / RFC 8446 §7.5), as NTS derives its
    /// keys: `length` bytes (1 to 4096) for `label` and `context`. Under TLS 1.2 no context (nil)
    /// differs from an empty one; under TLS 1.3 they are the same.
    /// - Throws: ``TLSError`` with code `keyExport` (an invalid length) or `closed`.
    package func exportKeyingMaterial(label: String, context: [UInt8]?, length: Int) throws(TLSError)
        -> [UInt8]
    {
        try checkOpen()
        return try engine.exportKeyingMaterial(label: label, context: context, length: length)
    }

    /// Sends a close_notify (waiting at most `timeout`, and never more than one
    /// ``CancellableWait/slice``, for it to leave; not at all once abandoned) and closes the
    /// transport; later calls do nothing, and later reads and writes throw `closed`.
    package func close(timeout: Duration) {
        guard !isClosed else { return }
        isClosed = true
        engine.shutdown(deadline: TLSEngine.deadline(after: timeout))
    }

    /// Throws `closed` once ``close(timeout:)`` was called.
    private func checkOpen() throws(TLSError) {
        if isClosed { throw TLSError(.closed, "the connection is closed") }
    }
}

extension TLSConnection: ByteStream {
    /// The transport's peer.
    package var peer: String { engine.peer }

    /// Writes all of `bytes` within `timeout` (a TLS record is all or nothing) and returns its count.
    /// - Throws: as ``write(_:timeout:)``.
    package func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(TLSError) -> Int {
        try write(Array(bytes), timeout: timeout)
        return bytes.count
    }

    /// ``read(maximum:timeout:)`` with a timeout as ``ReceivedBytes/timedOut`` instead of an error:
    /// a partial record stays buffered in OpenSSL and the next call goes on with it.
    /// - Throws: as ``read(maximum:timeout:)``, but never `timedOut`.
    package func receive(maximum: Int, timeout: Duration) throws(TLSError) -> ReceivedBytes {
        do {
            switch try read(maximum: maximum, timeout: timeout) {
            case .bytes(let bytes): return .bytes(bytes)
            case .endOfStream: return .endOfStream
            }
        } catch  where error.code == .timedOut {
            return .timedOut
        }
    }

    /// ``close(timeout:)`` with 100 ms for the close_notify to leave (the engine waits at most one
    /// 50 ms slice anyway).
    package func close() { close(timeout: .milliseconds(100)) }
}
