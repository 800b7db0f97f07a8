import NetClockPlatform
import NetClockTestSupport
import SNTP
import Synchronization
import TimeValues

/// The shared state of a running ``HTTPTimeServer``: sockets, configuration, delay generator,
/// request log and the threads to join. Threads hold this core, not the public server, so that
/// releasing the server stops it.
final class HTTPTimeServerCore: Sendable {
    private struct State {
        var configuration: HTTPTimeServer.Configuration
        var generator: SplitMix64
        var log: [HTTPTimeServerRequest] = []
        var acceptThread: JoinableThread?
        var connectionThreads: Set<JoinableThread> = []
        var finishedThreads: [JoinableThread] = []
        var openConnections: [ObjectIdentifier: AcceptedTCPConnection] = [:]
        var isStopped = false
    }

    let listener: TCPListener
    /// The TLS settings of an HTTPS server; nil for plain HTTP.
    let tls: HTTPSTimeServerTLS?
    /// Woken once, by ``stop()``, and never drained: every wait on it ends from then on.
    let stopSignal: WakeChannel
    private let state: Mutex<State>

    init(
        listener: TCPListener, stopSignal: WakeChannel, configuration: HTTPTimeServer.Configuration,
        seed: UInt64, tls: HTTPSTimeServerTLS? = nil
    ) {
        self.listener = listener
        self.tls = tls
        self.stopSignal = stopSignal
        self.state = Mutex(State(configuration: configuration, generator: SplitMix64(seed: seed)))
    }

    var configuration: HTTPTimeServer.Configuration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    var log: [HTTPTimeServerRequest] { state.withLock { $0.log } }

    func append(_ request: HTTPTimeServerRequest) { state.withLock { $0.log.append(request) } }

    /// The configuration for a request arriving now, with its two delays drawn.
    func snapshotForRequest() -> (HTTPTimeServer.Configuration, before: Duration, after: Duration) {
        state.withLock { state in
            let before = state.configuration.delayBeforeStamp.sample(using: &state.generator)
            let after = state.configuration.delayAfterStamp.sample(using: &state.generator)
            return (state.configuration, before, after)
        }
    }

    /// Starts the accept loop.
    /// - Throws: ``TransportError`` when its thread could not be created.
    func startAccepting() throws(TransportError) {
        let thread = try JoinableThread { [self] in acceptLoop() }
        state.withLock { $0.acceptThread = thread }
    }

    private func acceptLoop() {
        while true {
            switch listener.waitForConnection(orWakeFrom: stopSignal, milliseconds: 100) {
            case .woken:
                return
            case .timedOut:
                break
            case .readable:
                if let client = listener.accept() { startConnection(client) }
            }
            reapFinishedThreads()
        }
    }

    private func startConnection(_ connection: AcceptedTCPConnection) {
        let key = ObjectIdentifier(connection)
        // The lock is held while the thread is created so that it cannot report itself finished
        // before it is registered.
        let started = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.openConnections[key] = connection
            do {
                let thread = try JoinableThread { [self] in
                    HTTPTimeServerConnection(socket: connection, core: self).serve()
                    finishConnection(connection)
                }
                state.connectionThreads.insert(thread)
                return true
            } catch {
                state.openConnections[key] = nil
                return false
            }
        }
        if !started { connection.close() }
    }

    /// Called on a connection's thread when it is done: unregisters and closes the connection.
    private func finishConnection(_ connection: AcceptedTCPConnection) {
        state.withLock { state in
            state.openConnections[ObjectIdentifier(connection)] = nil
            state.finishedThreads.append(JoinableThread.current)
        }
        connection.close()
    }

    private func reapFinishedThreads() {
        let finished = state.withLock { state in
            let finished = state.finishedThreads
            state.finishedThreads.removeAll()
            for thread in finished { state.connectionThreads.remove(thread) }
            return finished
        }
        for thread in finished { thread.join() }
    }

    func stop() {
        let (wasRunning, acceptThread) = state.withLock { state -> (Bool, JoinableThread?) in
            guard !state.isStopped else { return (false, nil) }
            state.isStopped = true
            return (true, state.acceptThread)
        }
        guard wasRunning else { return }
        stopSignal.wake()
        acceptThread?.join()
        let threads = state.withLock { state in
            for connection in state.openConnections.values { connection.shutdown() }
            let threads = state.connectionThreads
            state.connectionThreads.removeAll()
            state.finishedThreads.removeAll()
            return threads
        }
        for thread in threads { thread.join() }
        listener.close()
        stopSignal.close()
    }
}
