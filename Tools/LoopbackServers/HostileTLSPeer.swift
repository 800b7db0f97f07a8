import NTS
import NetClockPlatform
import NetClockTLS
import NetClockTestSupport
import Synchronization

/// A raw TCP listener on loopback that plays a hostile TLS server: it reads the ClientHello and
/// answers with a scripted fault (``HostileTLSPeerScript``) at one stage of the session — in place
/// of the ServerHello, in the middle of the handshake, or after a valid handshake (the test CA's
/// certificate, through the package's own TLS server side) in place of the response — for
/// `https://` clients (HTTP/1.1, no ALPN, TLS 1.2 or 1.3) or NTS-KE clients (ALPN `ntske/1`,
/// TLS 1.3).
///
/// Each connection is served on its own thread and held open as the fault requires (until the
/// client goes away, at most ``HostileTLSPeerSession/limit``); ``stop()`` (or releasing the peer)
/// wakes and joins every thread and closes every socket.
package final class HostileTLSPeer: Sendable {
    private struct State {
        var acceptThread: JoinableThread?
        var threads: [JoinableThread] = []
        var open: [ObjectIdentifier: AcceptedTCPConnection] = [:]
        var accepted = 0
        var handshakes = 0
        var isStopped = false
    }

    /// The loopback address listened on.
    package let host = "127.0.0.1"
    /// The ephemeral port listened on.
    package let port: UInt16
    /// What the peer does.
    package let script: HostileTLSPeerScript
    /// What it pretends to serve.
    package let application: HostileTLSPeerScript.Application
    private let tls: TLSServerConfiguration
    private let listener: TCPListener
    private let stopSignal: WakeChannel
    private let state = Mutex(State())

    /// Starts a peer that plays `script` to every connection, for `application`, presenting the
    /// valid server certificate of `certificates` when a handshake goes that far.
    package init(
        _ script: HostileTLSPeerScript, application: HostileTLSPeerScript.Application,
        certificates: TestCertificates
    ) throws(HTTPTimeServerError) {
        self.script = script
        self.application = application
        self.tls = TLSServerConfiguration(
            certificateChainFile: certificates.serverCertificate, privateKeyFile: certificates.serverKey,
            applicationProtocols: application == .ntske ? [NTSKEConstants.alpn] : [],
            minimumVersion: application == .ntske ? .tls13 : .tls12)
        do throws(TransportError) {
            listener = try TCPListener(binding: .loopback(.ipv4, port: 0))
            stopSignal = try WakeChannel()
            port = listener.localAddress.port
            let thread = try JoinableThread { [self] in acceptLoop() }
            state.withLock { $0.acceptThread = thread }
        } catch {
            throw HTTPTimeServerError(error)
        }
    }

    deinit { stop() }

    /// `host:port`, as an NTS server name.
    package var hostAndPort: String { "\(host):\(port)" }

    /// The `https://` URL of the peer.
    package var url: String { "https://\(host):\(port)/" }

    /// How many connections were accepted so far.
    package var connections: Int { state.withLock { $0.accepted } }

    /// How many of them completed an honest handshake.
    package var handshakes: Int { state.withLock { $0.handshakes } }

    /// How many connections are still being served (held open): a session ends once its client
    /// has closed the connection.
    package var openConnections: Int { state.withLock { $0.open.count } }

    /// Waits up to `limit` until no connection is held open; false if one still is.
    package func waitUntilAllClosed(within limit: Duration) async -> Bool {
        let end = ContinuousClock.now + limit
        while openConnections > 0 {
            guard ContinuousClock.now < end else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    private func acceptLoop() {
        while true {
            switch listener.waitForConnection(orWakeFrom: stopSignal, milliseconds: 100) {
            case .woken: return
            case .timedOut: continue
            case .readable: if let client = listener.accept() { start(client) }
            }
        }
    }

    private func start(_ connection: AcceptedTCPConnection) {
        let session = HostileTLSPeerSession(
            raw: connection, stop: stopSignal, script: script, application: application, tls: tls,
            handshakeFinished: { [self] in state.withLock { $0.handshakes += 1 } })
        let key = ObjectIdentifier(connection)
        // The lock is held while the thread starts, so that it cannot finish before it is known.
        let started = state.withLock { locked -> Bool in
            guard !locked.isStopped else { return false }
            locked.accepted += 1
            locked.open[key] = connection
            do {
                locked.threads.append(
                    try JoinableThread { [self] in
                        session.serve()
                        _ = state.withLock { $0.open.removeValue(forKey: key) }
                    })
                return true
            } catch {
                locked.open[key] = nil
                return false
            }
        }
        if !started { connection.close() }
    }

    /// Stops accepting, ends every session and joins every thread; later calls do nothing.
    package func stop() {
        let acceptThread = state.withLock { state -> JoinableThread? in
            guard !state.isStopped else { return nil }
            state.isStopped = true
            return state.acceptThread
        }
        guard let acceptThread else { return }
        stopSignal.wake()
        acceptThread.join()
        let threads = state.withLock { state in
            for connection in state.open.values { connection.shutdown() }
            return state.threads
        }
        for thread in threads { thread.join() }
        listener.close()
        stopSignal.close()
    }
}
