import NetClockPlatform
import NetClockTLS
import NetClockTestSupport
import Synchronization

/// A loopback TCP server that serves exactly one connection on a thread of its own, for the TLS
/// tests: a TLS server through the seam, or a hostile peer below TLS.
final class OneConnectionServer: Sendable {
    /// What the server does with its connection.
    enum Behaviour: Sendable {
        /// A TLS handshake with `configuration`; then it exports keying material for `label` and
        /// `context` and echoes one message back.
        case tls(TLSServerConfiguration, label: String, context: [UInt8])
        /// A TLS handshake with `configuration`, then the end: a close_notify when `notifying`,
        /// otherwise the socket is closed without one.
        case tlsThenClose(TLSServerConfiguration, notifying: Bool)
        /// Accepts the TCP connection and never answers (until stopped).
        case stall
        /// Reads the first bytes (the ClientHello) and closes the connection.
        case closeAfterFirstBytes
    }

    /// What happened on the server's side.
    struct Outcome: Sendable {
        var error: TLSError?
        var negotiatedProtocol: String?
        var protocolVersion: TLSProtocolVersion?
        var requestedServerName: String?
        var exported: [UInt8]?
        var received: [UInt8] = []
    }

    /// Where the server listens.
    let address: SocketAddress
    private let listener: TCPListener
    private let stop: WakeChannel
    private let thread: JoinableThread
    private let outcome: OutcomeRecord

    /// The server thread's ``Outcome``, shared with the test's thread.
    private final class OutcomeRecord: Sendable {
        let value = Mutex(Outcome())
    }

    /// Starts listening on a free loopback port of `family` and serving with `behaviour`.
    init(_ behaviour: Behaviour, family: SocketAddress.Family = .ipv4) throws {
        let listener = try TCPListener(binding: .loopback(family, port: 0))
        let stop = try WakeChannel()
        let outcome = OutcomeRecord()
        self.listener = listener
        self.stop = stop
        self.outcome = outcome
        self.address = listener.localAddress
        self.thread = try JoinableThread {
            guard listener.waitForConnection(orWakeFrom: stop, milliseconds: 10_000) == .readable,
                let connection = listener.accept()
            else { return }
            let transport = AcceptedByteStream(connection, stop: stop)
            let result = Self.serve(behaviour, transport: transport, stop: stop)
            outcome.value.withLock { $0 = result }
        }
    }

    /// Stops the server, waits for its thread and returns what happened.
    func finish() -> Outcome {
        stop.wake()
        thread.join()
        listener.close()
        stop.close()
        return outcome.value.withLock { $0 }
    }

    private static func serve(_ behaviour: Behaviour, transport: AcceptedByteStream, stop: WakeChannel)
        -> Outcome
    {
        var outcome = Outcome()
        switch behaviour {
        case .stall:
            // Reads and drops the ClientHello, until the client gives up or the server stops.
            while case .bytes = try? transport.receive(maximum: 4096, timeout: .seconds(30)) {}
            transport.close()
        case .closeAfterFirstBytes:
            if case .bytes(let bytes) = try? transport.receive(maximum: 4096, timeout: .seconds(10)) {
                outcome.received = bytes
            }
            transport.close()
        case .tlsThenClose(let configuration, let notifying):
            do {
                let connection = try TLSConnection.accept(
                    over: transport, configuration: configuration, timeout: .seconds(10))
                // Without a close_notify: releasing the connection closes the socket.
                if notifying { connection.close() }
            } catch {
                outcome.error = error
            }
        case .tls(let configuration, let label, let context):
            do {
                let connection = try TLSConnection.accept(
                    over: transport, configuration: configuration, timeout: .seconds(10))
                outcome.negotiatedProtocol = connection.negotiatedProtocol
                outcome.protocolVersion = connection.protocolVersion
                outcome.requestedServerName = connection.requestedServerName
                outcome.exported = try connection.exportKeyingMaterial(
                    label: label, context: context, length: 32)
                if case .bytes(let bytes) = try connection.read(maximum: 4096, timeout: .seconds(10)) {
                    outcome.received = bytes
                    try connection.write(bytes, timeout: .seconds(10))
                }
                _ = try? connection.read(maximum: 1, timeout: .seconds(10))
                connection.close()
            } catch {
                outcome.error = error
            }
        }
        return outcome
    }
}
