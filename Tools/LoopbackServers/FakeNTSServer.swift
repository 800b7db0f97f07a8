import NetClockPlatform
import NetClockTestSupport
import SNTP
import Synchronization
import TimeValues

/// A fake NTS server (RFC 8915) on a loopback address, run in-process on two threads of its own:
/// NTS-KE over TLS 1.3 on a TCP listener, and NTS-protected NTP on a UDP socket of the same address,
/// whose port the NTS-KE response names. Its clock, certificate and manners are configurable: the
/// counterpart tests need for an NTS client, including the hostile peers it must refuse.
///
/// ```swift
/// let certificates = try TestCertificates.require()
/// let server = try FakeNTSServer(configuration: .init(certificates: certificates, offset: .seconds(2)))
/// defer { server.stop() }
/// // NTS-KE to 127.0.0.1:server.kePort (name localhost or 127.0.0.1, trust certificates.caFile),
/// // then NTP to the negotiated port: a correct client measures an offset of +2 s.
/// ```
///
/// Cookies are the C2S and S2C keys sealed under a random master key (``CookieJar``); a request
/// whose cookie does not open or whose authenticator does not verify gets an NTS NAK. A plain
/// 48-byte request gets a plain SNTP reply. The server only binds loopback addresses and only ever
/// answers the address a request came from.
package final class FakeNTSServer: Sendable {
    /// The shared state.
    private let core: Core
    /// The NTS-KE and NTP threads, until ``stop()``.
    private let threads: Mutex<[JoinableThread]>

    /// Binds the configured loopback address (TCP for NTS-KE, UDP for NTP) and starts serving.
    ///
    /// - Throws: ``FakeNTPServer/StartError`` when the host is not a numeric loopback address, or a
    ///   socket cannot be bound or a thread started. A bad certificate shows only when a client
    ///   connects (its handshake fails and ``Statistics/keFailures`` counts it).
    package init(configuration: Configuration) throws(FakeNTPServer.StartError) {
        guard let address = SocketAddress(numericHost: configuration.host, port: configuration.kePort) else {
            throw FakeNTPServer.StartError(
                .invalidHost, "not a numeric IPv4 or IPv6 address: \(configuration.host)")
        }
        guard address.isLoopback else {
            throw FakeNTPServer.StartError(.notLoopback, "not a loopback address: \(configuration.host)")
        }
        // Each of these closes its descriptors when released if a later step throws.
        let core: Core
        do throws(TransportError) {
            core = Core(
                listener: try TCPListener(binding: address),
                socket: try UDPServerSocket(binding: address.withPort(configuration.ntpPort)),
                keStop: try WakeChannel(), ntpWake: try WakeChannel(), configuration: configuration)
        } catch {
            throw FakeNTPServer.StartError(error)
        }
        var threads: [JoinableThread] = []
        do throws(TransportError) {
            threads.append(try JoinableThread { [core] in KESession.run(core: core) })
            threads.append(
                try JoinableThread { [core] in
                    var loop = NTPLoop(core: core)
                    loop.run()
                })
        } catch {
            // The second thread failed to start: stop the first before giving up.
            core.requestStop()
            for thread in threads { thread.join() }
            core.close()
            throw FakeNTPServer.StartError(error)
        }
        self.core = core
        self.threads = Mutex(threads)
    }

    deinit { stop() }

    /// The address both listeners are bound to, e.g. `127.0.0.1` or `::1`.
    package var host: String { core.listener.localAddress.host }

    /// The NTS-KE TCP port.
    package var kePort: UInt16 { core.listener.localAddress.port }

    /// The NTP UDP port (named in the NTS-KE response's Port Negotiation record).
    package var ntpPort: UInt16 { core.ntpPort }

    /// Whether the server is still serving (``stop()`` has not been called).
    package var isRunning: Bool { threads.withLock { !$0.isEmpty } }

    /// The current configuration.
    package var configuration: Configuration { core.configuration.withLock { $0 } }

    /// Changes the configuration; the change applies from the next NTS-KE connection or NTP request
    /// on. `host`, `kePort` and `ntpPort` cannot change while the server runs and are ignored.
    package func update(_ body: (inout Configuration) -> Void) {
        core.configuration.withLock { configuration in
            let (host, kePort, ntpPort) = (configuration.host, configuration.kePort, configuration.ntpPort)
            body(&configuration)
            (configuration.host, configuration.kePort, configuration.ntpPort) = (host, kePort, ntpPort)
        }
    }

    /// A snapshot of the counters.
    package var statistics: Statistics { core.statistics.withLock { $0 } }

    /// Waits until `condition` holds for the statistics, polling every millisecond.
    /// - Returns: whether it held within `timeout`.
    package func waitUntil(timeout: Duration, _ condition: (Statistics) -> Bool) -> Bool {
        Polling.wait(timeout: timeout) { condition(statistics) }
    }

    /// Stops serving: wakes both threads (ending any NTS-KE connection in progress), joins them
    /// (bounded: every wait they make is woken by the stop) and closes every socket, freeing the
    /// ports. Delayed replies not yet sent are dropped. Calling it again does nothing.
    package func stop() {
        let running = threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        guard !running.isEmpty else { return }
        core.requestStop()
        for thread in running { thread.join() }
        core.close()
    }
}
