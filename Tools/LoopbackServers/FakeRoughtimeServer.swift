import NetClockPlatform
import NetClockTestSupport
import NetClockTLS
import Roughtime
import SNTP
import Synchronization
import TimeValues

/// A Roughtime server on a loopback address, run in-process on its own thread: RFC 10049, the
/// drafts 10 to 15 and Google-Roughtime, correct or hostile as configured. The counterpart tests
/// and benchmarks need for a Roughtime client, and `roughly query`'s peer in the interop tests.
///
/// ```swift
/// let server = try FakeRoughtimeServer(configuration: .init(offset: .seconds(3600)))
/// defer { server.stop() }
/// // ask 127.0.0.1:server.port with server.publicKey: a valid reply an hour ahead (a signed lie)
/// server.update { $0.behaviour = .badResponseSignature }
/// ```
///
/// With a ``Configuration/batchWindow``, requests arriving within it of the first are answered
/// together under one signature, so their Merkle paths are not empty. The server only binds
/// loopback addresses and only ever answers the address a request came from.
package final class FakeRoughtimeServer: Sendable {
    /// The address and port the server listens on.
    package let address: SocketAddress
    private let core: Core
    private let thread: Mutex<JoinableThread?>

    /// Binds the configured loopback address and starts serving on a new thread.
    /// - Throws: ``FakeNTPServer/StartError`` when the host is not a numeric loopback address, the
    ///   socket cannot be bound, or OpenSSL cannot make the delegated key.
    package init(configuration: Configuration) throws(FakeNTPServer.StartError) {
        guard let requested = SocketAddress(numericHost: configuration.host, port: configuration.port) else {
            throw FakeNTPServer.StartError(
                .invalidHost, "not a numeric IPv4 or IPv6 address: \(configuration.host)")
        }
        guard requested.isLoopback else {
            throw FakeNTPServer.StartError(.notLoopback, "not a loopback address: \(configuration.host)")
        }
        let responder: Responder
        do {
            responder = try Responder()
        } catch {
            throw FakeNTPServer.StartError(.systemCallFailed, error.description)
        }
        let core: Core
        let thread: JoinableThread
        do throws(TransportError) {
            core = Core(
                socket: try UDPServerSocket(binding: requested), wake: try WakeChannel(),
                configuration: configuration)
            thread = try JoinableThread { [core] in
                var loop = Loop(core: core, responder: responder)
                loop.run()
            }
        } catch {
            throw FakeNTPServer.StartError(error)
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

    /// `host:port` (`[::1]:port` for IPv6), as a server list writes it.
    package var hostAndPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The long-term public key clients must know.
    package var publicKey: [UInt8] { configuration.publicKey }

    /// The current configuration.
    package var configuration: Configuration { core.configuration.withLock { $0 } }

    /// Changes the configuration from the next batch on; `host` and `port` cannot change while the
    /// server runs and are ignored.
    package func update(_ body: (inout Configuration) -> Void) {
        core.configuration.withLock { configuration in
            let (host, port) = (configuration.host, configuration.port)
            body(&configuration)
            (configuration.host, configuration.port) = (host, port)
        }
    }

    /// A snapshot of the counters.
    package var statistics: Statistics { core.statistics.withLock { $0 } }

    /// Waits until `condition` holds for the statistics, polling every millisecond.
    /// - Returns: whether it held within `timeout`.
    package func waitUntil(timeout: Duration, _ condition: (Statistics) -> Bool) -> Bool {
        Polling.wait(timeout: timeout) { condition(statistics) }
    }

    /// Stops serving, joins the thread and closes the socket, freeing the port. Replies not yet
    /// sent are dropped. Calling it again does nothing.
    package func stop() {
        let running = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        guard let running else { return }
        core.isStopRequested.store(true, ordering: .releasing)
        core.wake.wake()
        running.join()
        core.socket.close()
        core.wake.close()
    }

    /// The server's counters.
    package struct Statistics: Hashable, Sendable {
        /// Datagrams received.
        package var requests = 0
        /// Replies sent.
        package var replies = 0
        /// Requests that got no reply.
        package var dropped = 0
        /// Batches answered (one signature each per version).
        package var batches = 0
        /// The most requests answered under one signature.
        package var largestBatch = 0
        /// The longest Merkle path sent.
        package var longestPath = 0
        /// Replies sent per version.
        package var repliesByVersion: [RoughtimeVersion: Int] = [:]
        /// The reason the last dropped request was dropped.
        package var lastDropReason: String?
    }

    /// What the server object and its thread share.
    final class Core: Sendable {
        let socket: UDPServerSocket
        let wake: WakeChannel
        let configuration: Mutex<Configuration>
        let statistics = Mutex(Statistics())
        let isStopRequested = Atomic<Bool>(false)

        init(socket: UDPServerSocket, wake: WakeChannel, configuration: Configuration) {
            self.socket = socket
            self.wake = wake
            self.configuration = Mutex(configuration)
        }
    }
}
