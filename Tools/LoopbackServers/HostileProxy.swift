import Foundation
import NetClockPlatform
import NetClockTestSupport
import Synchronization

/// A raw TCP listener on loopback that plays a hostile `http://` proxy: it reads a request head
/// (`CONNECT` or absolute-form) and answers with a scripted fault (``Script``).
///
/// Each connection is served on its own thread and held open as the fault requires (until the
/// client goes away, at most ``limit``); ``stop()`` (or releasing the proxy) wakes and joins
/// every thread and closes every socket.
package final class HostileProxy: Sendable {
    /// What the proxy does once it has read a request head.
    package enum Script: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Never answers.
        case stall
        /// Answers with bytes that are not HTTP.
        case garbage
        /// Sends part of a status line and closes the connection.
        case closeEarly
        /// `407 Proxy Authentication Required` with `Proxy-Authenticate: Basic realm="netclock"`.
        case authenticationRequired
        /// `403 Forbidden`.
        case forbidden
        /// `200 Connection established`, then, once the client speaks, plain HTTP in place of TLS.
        case tunnelToPlainText
        /// `200 Connection established` with bytes after it in the same write, before any
        /// ClientHello.
        case bytesAfterEstablished
        /// Not hostile: an honest but slow proxy that waits ``slowTunnelDelay`` before it opens each
        /// tunnel, then relays bytes both ways to the `CONNECT` target's port on 127.0.0.1 (always
        /// loopback, whatever host it names).
        case slowTunnel

        /// Every fault, ``slowTunnel`` aside.
        package static let faults = allCases.filter { $0 != .slowTunnel }

        package var description: String { rawValue }
    }

    private struct State {
        var acceptThread: JoinableThread?
        var threads: [JoinableThread] = []
        var open: [ObjectIdentifier: AcceptedTCPConnection] = [:]
        var heads: [String] = []
        var isStopped = false
    }

    /// The longest a session is held open.
    package static let limit = Duration.seconds(10)
    /// How long ``Script/slowTunnel`` waits before opening a tunnel.
    package static let slowTunnelDelay = Duration.milliseconds(300)

    /// The loopback address listened on.
    package let host = "127.0.0.1"
    /// The ephemeral port listened on.
    package let port: UInt16
    /// What the proxy does.
    package let script: Script
    private let listener: TCPListener
    private let stopSignal: WakeChannel
    private let state = Mutex(State())

    /// Starts a proxy that plays `script` to every connection.
    package init(_ script: Script) throws(TransportError) {
        self.script = script
        listener = try TCPListener(binding: .loopback(.ipv4, port: 0))
        stopSignal = try WakeChannel()
        port = listener.localAddress.port
        let thread = try JoinableThread { [self] in acceptLoop() }
        state.withLock { $0.acceptThread = thread }
    }

    deinit { stop() }

    /// The proxy's URL, `http://127.0.0.1:PORT`.
    package var url: String { "http://\(host):\(port)" }

    /// The request heads read so far, one string each.
    package var requestHeads: [String] { state.withLock { $0.heads } }

    /// How many connections are still held open.
    package var openConnections: Int { state.withLock { $0.open.count } }

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
        let key = ObjectIdentifier(connection)
        let started = state.withLock { locked -> Bool in
            guard !locked.isStopped else { return false }
            locked.open[key] = connection
            do {
                locked.threads.append(
                    try JoinableThread { [self] in
                        serve(connection)
                        connection.close()
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

    /// Reads one request head, then plays the script.
    private func serve(_ connection: AcceptedTCPConnection) {
        let end = ContinuousClock.now + Self.limit
        guard let head = readHead(connection, until: end) else { return }
        state.withLock { $0.heads.append(head) }
        let established = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)
        switch script {
        case .stall:
            break
        case .garbage:
            _ = connection.sendAll(Array("\u{1}\u{2}SSH-2.0-garbage\0\0\r\n\r\n".utf8)[...])
        case .closeEarly:
            _ = connection.sendAll(Array("HTTP/1.1 20".utf8)[...])
            return
        case .authenticationRequired:
            _ = connection.sendAll(
                Array(
                    ("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"netclock\"\r\n"
                        + "Content-Length: 0\r\n\r\n").utf8)[...])
        case .forbidden:
            _ = connection.sendAll(Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8)[...])
        case .tunnelToPlainText:
            guard connection.sendAll(established[...]), waitForBytes(connection, until: end) else { return }
            // A plain-text "origin" whose Date is years off: it must never reach the clock.
            let answer = "HTTP/1.1 200 OK\r\nDate: Sat, 01 Jan 2000 00:00:00 GMT\r\nContent-Length: 0\r\n\r\n"
            _ = connection.sendAll(Array(answer.utf8)[...])
        case .bytesAfterEstablished:
            _ = connection.sendAll((established + Array("HTTP/1.1 200 OK\r\n".utf8))[...])
        case .slowTunnel:
            Thread.sleep(forTimeInterval: Double(Self.slowTunnelDelay.components.attoseconds) / 1e18)
            relay(connection, head: head, until: end)
            return
        }
        // Held open until the client goes away, the proxy stops, or the limit.
        while ContinuousClock.now < end && waitForBytes(connection, until: end) {}
    }

    /// Connects to the `CONNECT` target's port on 127.0.0.1, answers 200, and relays both ways (each
    /// direction polled for 1 ms in turn) until either side closes or `end`.
    private func relay(_ connection: AcceptedTCPConnection, head: String, until end: ContinuousClock.Instant)
    {
        let target = head.split(separator: " ").dropFirst().first ?? ""
        guard let port = target.split(separator: ":").last.flatMap({ UInt16($0) }),
            let origin = try? TCPConnection(startingConnectionTo: .loopback(.ipv4, port: port)),
            (try? origin.waitUntilConnected(timeout: .seconds(2))) == true
        else {
            _ = connection.sendAll(Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8)[...])
            return
        }
        defer { origin.close() }
        guard connection.sendAll(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)[...]) else {
            return
        }
        while ContinuousClock.now < end {
            switch connection.waitReadable(orWakeFrom: stopSignal, milliseconds: 1) {
            case .woken: return
            case .timedOut: break
            case .readable:
                guard let bytes = connection.receive(maximum: 16_384) else { return }
                var offset = 0
                while offset < bytes.count {
                    guard let sent = try? origin.send(bytes[offset...], timeout: .seconds(1)) else { return }
                    offset += sent
                }
            }
            switch try? origin.receive(maximum: 16_384, timeout: .milliseconds(1)) {
            case .bytes(let bytes): guard connection.sendAll(bytes[...]) else { return }
            case .timedOut: continue
            case .endOfStream, nil: return
            }
        }
    }

    /// Reads until an empty line; nil if the client went away or the proxy stopped first.
    private func readHead(_ connection: AcceptedTCPConnection, until end: ContinuousClock.Instant) -> String?
    {
        var buffer: [UInt8] = []
        while buffer.count < 65_536 {
            guard waitReadable(connection, until: end), let bytes = connection.receive(maximum: 4096) else {
                return nil
            }
            buffer += bytes
            if let text = String(bytes: buffer, encoding: .utf8), text.contains("\r\n\r\n") { return text }
        }
        return nil
    }

    /// Waits for bytes and discards them; false once the client closed, the proxy stopped, or `end`.
    private func waitForBytes(_ connection: AcceptedTCPConnection, until end: ContinuousClock.Instant) -> Bool
    {
        guard waitReadable(connection, until: end) else { return false }
        return connection.receive(maximum: 4096) != nil
    }

    private func waitReadable(_ connection: AcceptedTCPConnection, until end: ContinuousClock.Instant) -> Bool
    {
        while ContinuousClock.now < end {
            switch connection.waitReadable(orWakeFrom: stopSignal, milliseconds: 100) {
            case .readable: return true
            case .woken: return false
            case .timedOut: continue
            }
        }
        return false
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
