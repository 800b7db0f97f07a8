import NetClockPlatform
import NetClockTestSupport
import Synchronization

extension FakeNTSServer {
    /// What the server object and its two threads share: the sockets, the configuration, the
    /// cookie jar and the statistics.
    final class Core: Sendable {
        /// The NTS-KE TCP listener.
        let listener: TCPListener
        /// The NTP UDP socket.
        let socket: UDPServerSocket
        /// Woken once to stop the NTS-KE thread and any connection it serves; never drained.
        let keStop: WakeChannel
        /// Woken to stop the NTP thread.
        let ntpWake: WakeChannel
        /// The configuration, read at every connection and request.
        let configuration: Mutex<Configuration>
        /// The counters.
        let statistics = Mutex(Statistics())
        /// The master key behind every cookie.
        let jar: CookieJar
        /// Set when the server stops.
        let isStopRequested = Atomic<Bool>(false)
        /// The NTS-KE connection being served, which a stop shuts down so that even a send blocked
        /// on a peer that does not read returns.
        let activeConnection = Mutex<AcceptedTCPConnection?>(nil)

        /// A core over open sockets.
        init(
            listener: TCPListener, socket: UDPServerSocket, keStop: WakeChannel, ntpWake: WakeChannel,
            configuration: Configuration
        ) {
            self.listener = listener
            self.socket = socket
            self.keStop = keStop
            self.ntpWake = ntpWake
            self.configuration = Mutex(configuration)
            self.jar = CookieJar(padding: configuration.cookiePadding)
        }

        /// The NTP port the NTS-KE responses name.
        var ntpPort: UInt16 { socket.localAddress.port }

        /// Changes the statistics under the lock.
        func record(_ body: (inout Statistics) -> Void) {
            statistics.withLock { body(&$0) }
        }

        /// Asks both threads to finish and wakes them.
        func requestStop() {
            isStopRequested.store(true, ordering: .releasing)
            keStop.wake()
            ntpWake.wake()
            activeConnection.withLock { $0?.shutdown() }
        }

        /// Releases every descriptor (after both threads have finished).
        func close() {
            listener.close()
            socket.close()
            keStop.close()
            ntpWake.close()
        }
    }
}
