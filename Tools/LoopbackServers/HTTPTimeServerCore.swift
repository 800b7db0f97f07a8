#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SNTP
import Synchronization

/// The shared state of a running ``HTTPTimeServer``: descriptors, configuration, delay generator,
/// request log and the threads to join. Threads hold this core, not the public server, so that
/// releasing the server stops it.
final class HTTPTimeServerCore: Sendable {
    private struct State {
        var configuration: HTTPTimeServer.Configuration
        var generator: SplitMix64
        var log: [HTTPTimeServerRequest] = []
        var acceptThread: pthread_t?
        var connectionThreads: Set<pthread_t> = []
        var finishedThreads: [pthread_t] = []
        var openConnections: Set<Int32> = []
        var isStopped = false
    }

    let listenFD: Int32
    let stopRead: Int32
    let stopWrite: Int32
    private let state: Mutex<State>

    init(
        listenFD: Int32, stopRead: Int32, stopWrite: Int32, configuration: HTTPTimeServer.Configuration,
        seed: UInt64
    ) {
        self.listenFD = listenFD
        self.stopRead = stopRead
        self.stopWrite = stopWrite
        self.state = Mutex(State(configuration: configuration, generator: SplitMix64(seed: seed)))
    }

    var configuration: HTTPTimeServer.Configuration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    var log: [HTTPTimeServerRequest] { state.withLock { $0.log } }

    func clearLog() { state.withLock { $0.log.removeAll() } }

    func append(_ request: HTTPTimeServerRequest) { state.withLock { $0.log.append(request) } }

    /// The configuration for a request arriving now, with its two delays drawn.
    func snapshotForRequest() -> (HTTPTimeServer.Configuration, before: Duration, after: Duration) {
        state.withLock { state in
            let before = state.configuration.delayBeforeStamp.sample(using: &state.generator)
            let after = state.configuration.delayAfterStamp.sample(using: &state.generator)
            return (state.configuration, before, after)
        }
    }

    /// Starts the accept loop; false if its thread could not be created.
    func startAccepting() -> Bool {
        let thread = HTTPServerSystem.startThread { [self] in acceptLoop() }
        guard let thread else { return false }
        state.withLock { $0.acceptThread = thread }
        return true
    }

    private func acceptLoop() {
        while true {
            switch HTTPServerSystem.waitReadable(listenFD, stopFD: stopRead, milliseconds: 100) {
            case .stopped:
                return
            case .timedOut:
                break
            case .readable:
                if let client = HTTPServerSystem.accept(listenFD) { startConnection(client) }
            }
            reapFinishedThreads()
        }
    }

    private func startConnection(_ fd: Int32) {
        // The lock is held while the thread is created so that it cannot report itself finished
        // before it is registered.
        let started = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.openConnections.insert(fd)
            let thread = HTTPServerSystem.startThread { [self] in
                HTTPTimeServerConnection(fd: fd, core: self).serve()
                finishConnection(fd)
            }
            guard let thread else {
                state.openConnections.remove(fd)
                return false
            }
            state.connectionThreads.insert(thread)
            return true
        }
        if !started { HTTPServerSystem.closeDescriptor(fd) }
    }

    /// Called on a connection's thread when it is done: unregisters and closes the descriptor (in
    /// that order, so that ``stop()`` never shuts down a reused descriptor number).
    private func finishConnection(_ fd: Int32) {
        state.withLock { state in
            state.openConnections.remove(fd)
            state.finishedThreads.append(HTTPServerSystem.currentThread())
        }
        HTTPServerSystem.closeDescriptor(fd)
    }

    private func reapFinishedThreads() {
        let finished = state.withLock { state in
            let finished = state.finishedThreads
            state.finishedThreads.removeAll()
            for thread in finished { state.connectionThreads.remove(thread) }
            return finished
        }
        for thread in finished { HTTPServerSystem.join(thread) }
    }

    func stop() {
        let (wasRunning, acceptThread) = state.withLock { state -> (Bool, pthread_t?) in
            guard !state.isStopped else { return (false, nil) }
            state.isStopped = true
            return (true, state.acceptThread)
        }
        guard wasRunning else { return }
        HTTPServerSystem.signal(stopWrite)
        if let acceptThread { HTTPServerSystem.join(acceptThread) }
        let threads = state.withLock { state in
            for fd in state.openConnections { HTTPServerSystem.shutdownBoth(fd) }
            let threads = state.connectionThreads
            state.connectionThreads.removeAll()
            state.finishedThreads.removeAll()
            return threads
        }
        for thread in threads { HTTPServerSystem.join(thread) }
        HTTPServerSystem.closeDescriptor(listenFD)
        HTTPServerSystem.closeDescriptor(stopRead)
        HTTPServerSystem.closeDescriptor(stopWrite)
    }
}
