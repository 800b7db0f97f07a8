/// A TCP connection on a non-blocking socket, for small request/response protocols such as
/// NetworkClock's plain HTTP client: every wait is one `poll(2)` with the relative timeout the
/// caller passes, so it needs no clock. It owns its descriptor (closed when released, or earlier by
/// an idempotent `close()`) and is meant for one thread at a time.
package final class TCPConnection: ByteStream {
    private var descriptor: FileDescriptor?
    private var isConnected = false
    /// The address the connection goes to.
    package let remote: SocketAddress

    /// ``remote``, as text.
    package var peer: String { "\(remote)" }

    /// Opens a non-blocking TCP socket and starts connecting it to `remote`; finish with
    /// ``waitUntilConnected(timeout:)`` before sending.
    /// - Throws: ``TransportError/connectionRefused(address:)`` when the peer refuses at once, or
    ///   ``TransportError/systemCall(operation:errno:reason:)`` when the socket cannot be created or
    ///   the connection fails at once.
    package init(startingConnectionTo remote: SocketAddress) throws(TransportError) {
        let socket = try FileDescriptor.socket(family: remote.familyConstant, type: Syscalls.streamType)
        if case .failure(let code) = Syscalls.prepareStreamSocket(socket.rawValue) {
            throw .failed("fcntl", errno: code)
        }
        let connectedAtOnce: Bool
        switch remote.withSockAddr({ Syscalls.startConnect(socket.rawValue, $0, $1) }) {
        case .success: connectedAtOnce = true
        case .failure(.nowInProgress): connectedAtOnce = false
        case .failure(let code): throw Self.connectError(code, remote: remote)
        }
        self.descriptor = consume socket
        self.remote = remote
        self.isConnected = connectedAtOnce
    }

    /// Closes the descriptor now; later calls do nothing, and later sends and receives throw.
    package func close() {
        descriptor = nil
    }

    /// Waits up to `timeout` for the connection to be established.
    /// - Returns: true once connected (immediately on later calls), false when the time ran out
    ///   first; call again to go on waiting.
    /// - Throws: ``TransportError/connectionRefused(address:)`` (nothing listens there) or
    ///   ``TransportError/systemCall(operation:errno:reason:)`` (unreachable, reset, closed, …).
    package func waitUntilConnected(timeout: Duration) throws(TransportError) -> Bool {
        if isConnected { return true }
        let fd = try openDescriptor("connect")
        switch Syscalls.pollWritable(fd, milliseconds: Self.milliseconds(timeout)) {
        case .success(true): break
        case .success(false): return false
        case .failure(let code): throw .failed("poll", errno: code)
        }
        if let code = Syscalls.pendingSocketError(fd) { throw Self.connectError(code, remote: remote) }
        isConnected = true
        return true
    }

    /// Sends as much of `bytes` as the connection accepts within `timeout` and returns how many
    /// bytes were sent (0 when there was no room in time).
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when the connection is not
    ///   established, is closed, or failed (for example reset by the peer).
    package func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(TransportError) -> Int {
        let fd = try openDescriptor("send")
        guard isConnected else {
            throw .systemCall(
                operation: "send to \(remote)", errno: .socketNotConnected, reason: "not connected yet")
        }
        guard !bytes.isEmpty else { return 0 }
        var total = 0
        var waited = false
        while total < bytes.count {
            switch bytes[(bytes.startIndex + total)...].withUnsafeBytes({ Syscalls.send(fd, $0) }) {
            case .success(let count) where count > 0:
                total += count
                continue
            case .success, .failure(.wouldBlock):
                break
            case .failure(let code):
                throw .failed("send to \(remote)", errno: code)
            }
            // No room: wait once per call, so that the call stays within `timeout`.
            if waited { break }
            waited = true
            switch Syscalls.pollWritable(fd, milliseconds: Self.milliseconds(timeout)) {
            case .success(true): continue
            case .success(false): return total
            case .failure(let code): throw .failed("poll", errno: code)
            }
        }
        return total
    }

    /// Waits up to `timeout` for data and reads at most `maximum` (at least 1) bytes of it.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when the connection is not
    ///   established, is closed, or failed (for example reset by the peer).
    package func receive(maximum: Int, timeout: Duration) throws(TransportError) -> ReceivedBytes {
        let fd = try openDescriptor("receive")
        guard isConnected else {
            throw .systemCall(
                operation: "receive from \(remote)", errno: .socketNotConnected, reason: "not connected yet")
        }
        switch Syscalls.pollReadable(fd, milliseconds: Self.milliseconds(timeout)) {
        case .success(true): break
        case .success(false): return .timedOut
        case .failure(let code): throw .failed("poll", errno: code)
        }
        var buffer = [UInt8](repeating: 0, count: max(1, maximum))
        switch buffer.withUnsafeMutableBytes({ Syscalls.receive(fd, $0) }) {
        case .success(0): return .endOfStream
        case .success(let count): return .bytes(Array(buffer.prefix(count)))
        case .failure(.wouldBlock): return .timedOut
        case .failure(let code): throw .failed("receive from \(remote)", errno: code)
        }
    }

    private func openDescriptor(_ operation: String) throws(TransportError) -> Int32 {
        guard let fd = descriptor?.rawValue else { throw .closed(operation, "connection") }
        return fd
    }

    private static func connectError(_ code: Errno, remote: SocketAddress) -> TransportError {
        if code == .connectionRefused { return .connectionRefused(address: remote) }
        return .failed("connect to \(remote)", errno: code)
    }

    /// A timeout for `poll`: 0 for a non-positive duration (just look), otherwise whole milliseconds
    /// rounded up, capped at one hour. Shared with the TLS layer's server transport.
    package static func milliseconds(_ duration: Duration) -> Int32 {
        duration <= .zero ? 0 : UDPSocket.milliseconds(duration)
    }
}
