import NetClockPlatform
import NetClockTestSupport
import SNTP
import TimeValues

/// An in-process HTTP/1.1 time server on a loopback address and an ephemeral port, for tests and
/// benchmarks of HTTP time sources; with ``HTTPSTimeServerTLS`` settings, an HTTPS server (TLS 1.2
/// and 1.3, a certificate of ``TestCertificates``) with the same responses and misbehaviours, plus
/// TLS ones (a refused certificate, a stalled handshake, a cut or an alert between records).
///
/// Its clock is `CLOCK_REALTIME` plus a configurable ``Configuration/offset``; each request is
/// handled on its own thread: read the request head, wait the "processing" delay, read the clock,
/// build the `Date` (and optionally a millisecond timestamp) header from that reading, optionally
/// wait again, then write the response and close the connection (`Connection: close`). Every
/// request is logged. ``stop()`` (or releasing the server) closes every socket and joins every
/// thread.
package final class HTTPTimeServer: Sendable {
    /// The loopback address listened on: `127.0.0.1` or `::1`.
    package let host: String
    /// The ephemeral port listened on.
    package let port: UInt16
    private let core: HTTPTimeServerCore

    /// Starts a server.
    ///
    /// - Parameters:
    ///   - configuration: the clock offset, delays, headers and misbehaviour.
    ///   - ipv6: listen on `::1` instead of `127.0.0.1`.
    ///   - seed: the seed of the delay generator, so runs repeat.
    ///   - tls: serve HTTPS with these settings instead of plain HTTP.
    package init(
        configuration: Configuration = Configuration(), ipv6: Bool = false, seed: UInt64 = 0x5EED,
        tls: HTTPSTimeServerTLS? = nil
    ) throws(HTTPTimeServerError) {
        host = ipv6 ? "::1" : "127.0.0.1"
        let loopback = SocketAddress.loopback(ipv6 ? .ipv6 : .ipv4, port: 0)
        do throws(TransportError) {
            // Both close their descriptors when released if a later step throws.
            let listener = try TCPListener(binding: loopback)
            let stop = try WakeChannel()
            port = listener.localAddress.port
            core = HTTPTimeServerCore(
                listener: listener, stopSignal: stop, configuration: configuration, seed: seed, tls: tls)
        } catch {
            throw HTTPTimeServerError(error)
        }
        do throws(TransportError) {
            try core.startAccepting()
        } catch {
            core.stop()
            throw HTTPTimeServerError(error)
        }
    }

    deinit { core.stop() }

    /// The server's base URL, e.g. `http://127.0.0.1:49152/`, `http://[::1]:49152/` or (HTTPS)
    /// `https://127.0.0.1:49152/`.
    package var urlString: String { url(hostName: host) }

    /// Whether the server speaks HTTPS.
    package var isSecure: Bool { core.tls != nil }

    /// The base URL with `hostName` (such as `localhost`, which the test certificate names) as its
    /// host, e.g. `https://localhost:49152/`.
    package func url(hostName: String) -> String {
        let scheme = isSecure ? "https" : "http"
        return hostName.contains(":")
            ? "\(scheme)://[\(hostName)]:\(port)/" : "\(scheme)://\(hostName):\(port)/"
    }

    /// The current configuration; setting it affects requests that arrive afterwards.
    package var configuration: Configuration {
        get { core.configuration }
        set { core.configuration = newValue }
    }

    /// Changes the configuration in place.
    package func update(_ change: (inout Configuration) -> Void) {
        var configuration = core.configuration
        change(&configuration)
        core.configuration = configuration
    }

    /// Every request answered (or begun to be answered) so far, in order.
    package var requests: [HTTPTimeServerRequest] { core.log }

    /// Stops listening, ends every connection, joins every thread and closes every descriptor.
    /// Safe to call more than once.
    package func stop() { core.stop() }
}
