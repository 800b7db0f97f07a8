import NetClockPlatform
import NetClockTestSupport
import SNTP
import Synchronization
import TimeValues

/// An SNTP server on a loopback address, run in-process on its own thread, whose clock, paths and
/// manners are all configurable: the counterpart tests and benchmarks need for a client.
///
/// ```swift
/// let server = try FakeNTPServer(configuration: .init(offset: .seconds(2)))
/// defer { server.stop() }
/// // query 127.0.0.1:server.port; a correct client measures an offset of +2 s
/// server.update { $0.behaviour = .kissOfDeath(code: "RATE") }
/// ```
///
/// Each request goes through three scheduled stages, so delayed replies never hold up other
/// requests: after the outbound delay T2 is stamped, after the processing delay T3 is stamped, and
/// after the return delay the reply is sent. Stamps are taken at the instant they happen (this
/// machine's `CLOCK_REALTIME` plus the configured offset and frequency gain), so scheduling latency — typically well
/// under 0.2 ms — can lengthen a simulated path but never makes a timestamp wrong.
///
/// The server only binds loopback addresses and only ever answers the address a request came from.
package final class FakeNTPServer: Sendable {
    /// The address and port the server listens on.
    package let address: SocketAddress
    private let core: Core
    private let thread: Mutex<JoinableThread?>

    /// Binds the configured loopback address and starts serving on a new thread.
    ///
    /// - Parameters:
    ///   - configuration: What the server does.
    ///   - clock: The machine's clock the server's clock is derived from (plus
    ///     ``Configuration/offset`` and ``Configuration/frequencyPPM``): the system wall clock, or a
    ///     simulated clock so that a test drives the server's time and the client's from one
    ///     simulated timeline.
    /// - Throws: ``StartError`` when the host is not a numeric loopback address, or the socket cannot
    ///   be bound (e.g. the port is taken, or below 1024 without privileges).
    package init(
        configuration: Configuration, clock: some WallClock = SystemWallClock()
    ) throws(StartError) {
        guard let requested = SocketAddress(numericHost: configuration.host, port: configuration.port) else {
            throw StartError(.invalidHost, "not a numeric IPv4 or IPv6 address: \(configuration.host)")
        }
        guard requested.isLoopback else {
            throw StartError(.notLoopback, "not a loopback address: \(configuration.host)")
        }
        // Each of these closes its descriptors when released if a later step throws.
        let core: Core
        let thread: JoinableThread
        do throws(TransportError) {
            let socket = try UDPServerSocket(binding: requested)
            let otherSocket = try UDPServerSocket(binding: requested.withPort(0))
            let wake = try WakeChannel()
            core = Core(
                socket: socket, otherSocket: otherSocket, wake: wake, configuration: configuration,
                clock: clock)
            thread = try JoinableThread { [core] in
                var loop = EventLoop(core: core)
                loop.run()
            }
        } catch {
            throw StartError(error)
        }
        self.core = core
        self.address = core.socket.localAddress
        self.thread = Mutex(thread)
    }

    deinit { stop() }

    /// The address the server listens on, e.g. `127.0.0.1` or `::1`.
    package var host: String { address.host }

    /// The port the server listens on.
    package var port: UInt16 { address.port }

    /// The port of the second socket, from which ``Behaviour/fromOtherPort`` replies come.
    package var otherPort: UInt16 { core.otherSocket.localAddress.port }

    /// Whether the server is still serving (``stop()`` has not been called).
    package var isRunning: Bool { thread.withLock { $0 != nil } }

    /// The current configuration.
    package var configuration: Configuration { core.configuration.withLock { $0 } }

    /// Changes the configuration; the change applies from the next request on. `host` and `port`
    /// cannot change while the server runs and are ignored.
    package func update(_ body: (inout Configuration) -> Void) {
        core.configuration.withLock { configuration in
            let (host, port) = (configuration.host, configuration.port)
            body(&configuration)
            (configuration.host, configuration.port) = (host, port)
        }
    }

    /// Every request logged so far (or since ``clearRequests()``), oldest first.
    package var requests: [LoggedRequest] { core.log.entries }

    /// The logged requests from the `offset`-th on (0 is the oldest still in the log).
    package func requests(from offset: Int) -> [LoggedRequest] { core.log.entries(from: offset) }

    /// The number of logged requests.
    package var requestCount: Int { core.log.count }

    /// Forgets the logged requests. Requests keep their numbers, which count every datagram ever
    /// received.
    package func clearRequests() { core.log.removeAll() }

    /// Waits until at least `count` requests are logged (and, when `completed` is true, finished
    /// with: replied to in full or dropped). Blocks the calling thread, polling every millisecond.
    ///
    /// - Returns: whether that happened within `timeout`.
    package func waitForRequests(count: Int, timeout: Duration, completed: Bool = false) -> Bool {
        Polling.wait(timeout: timeout) { (completed ? core.log.completedCount : core.log.count) >= count }
    }

    /// Stops serving, waits for the thread to finish (a few microseconds) and closes every socket,
    /// freeing the port. Replies not yet sent are dropped. Calling it again does nothing.
    package func stop() {
        let running = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        guard let running else { return }
        core.requestStop()
        running.join()
        core.close()
    }
}
