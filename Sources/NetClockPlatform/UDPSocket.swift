/// A connected UDP socket: the kernel only delivers datagrams from the address it is connected to,
/// and reports ICMP port unreachable from it as `ECONNREFUSED`.
///
/// The socket owns its descriptor (a ``FileDescriptor``), closed when the socket is released, so no
/// path can leak it; `close()` may be called earlier and is idempotent.
package final class UDPSocket {
    private var descriptor: FileDescriptor?
    /// The address the socket is connected to.
    package let remote: SocketAddress

    /// Opens a UDP socket and connects it to `remote`.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when the socket cannot be
    ///   created or connected.
    package init(connectingTo remote: SocketAddress) throws(TransportError) {
        let socket = try FileDescriptor.socket(family: remote.familyConstant, type: Syscalls.datagramType)
        if case .failure(let code) = remote.withSockAddr({ Syscalls.connect(socket.rawValue, $0, $1) }) {
            throw .failed("connect to \(remote)", errno: code)
        }
        self.descriptor = consume socket
        self.remote = remote
    }

    /// Closes the descriptor now; later calls do nothing.
    package func close() {
        descriptor = nil
    }

    /// The descriptor number while the socket is open.
    private var openDescriptor: Int32? {
        descriptor?.rawValue
    }

    /// The descriptor number while the socket is open, for ``ReadinessWait``.
    var pollDescriptor: Int32? { openDescriptor }

    /// Takes one datagram that is already waiting, without blocking: its length (copied to the start
    /// of `buffer`, truncated by the kernel when longer), or nil when none is waiting.
    package func receiveWaiting(into buffer: inout [UInt8]) throws(TransportError) -> Int? {
        guard let fd = openDescriptor else { throw .closed("receive", "socket") }
        if buffer.isEmpty { buffer.append(0) }
        switch buffer.withUnsafeMutableBytes({ Syscalls.receive(fd, $0) }) {
        case .success(let count): return count
        case .failure(.wouldBlock): return nil
        case .failure(.connectionRefused): throw .connectionRefused(address: remote)
        case .failure(let code): throw .failed("receive from \(remote)", errno: code)
        }
    }

    /// Sends one datagram.
    package func send(_ bytes: [UInt8]) throws(TransportError) {
        guard let fd = openDescriptor else { throw .closed("send", "socket") }
        if case .failure(let code) = bytes.withUnsafeBytes({ Syscalls.send(fd, $0) }) {
            if code == .connectionRefused { throw .connectionRefused(address: remote) }
            throw .failed("send to \(remote)", errno: code)
        }
    }

    /// Waits up to `timeout` for one datagram and returns its bytes (at most `capacity`; longer
    /// datagrams are truncated by the kernel), or nil when the time ran out.
    package func receive(
        timeout: Duration, capacity: Int = 65_536
    ) throws(TransportError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: max(1, capacity))
        guard let count = try receive(into: &buffer, timeout: timeout) else { return nil }
        return Array(buffer.prefix(count))
    }

    /// Waits up to `timeout` for one datagram, copies it to the start of `buffer` and returns its
    /// length (a datagram longer than `buffer` is truncated by the kernel), or nil when the time
    /// ran out.
    ///
    /// `EINTR` during the wait is retried with the remaining time, measured on the boot-time clock.
    package func receive(into buffer: inout [UInt8], timeout: Duration) throws(TransportError) -> Int? {
        guard let descriptor = openDescriptor else { throw .closed("receive", "socket") }
        if buffer.isEmpty { buffer.append(0) }
        let deadline = Syscalls.clockTime(.bootTime) + timeout
        while true {
            let remaining = deadline - Syscalls.clockTime(.bootTime)
            guard remaining > .zero else { return nil }
            switch Syscalls.pollReadable(descriptor, milliseconds: Self.milliseconds(remaining)) {
            case .success(true): break
            case .success(false): continue
            case .failure(let code): throw .failed("poll", errno: code)
            }
            let fd = descriptor
            switch buffer.withUnsafeMutableBytes({ Syscalls.receive(fd, $0) }) {
            case .success(let count): return count
            case .failure(.wouldBlock): continue
            case .failure(.connectionRefused): throw .connectionRefused(address: remote)
            case .failure(let code): throw .failed("receive from \(remote)", errno: code)
            }
        }
    }

    /// Rounds a positive duration up to whole milliseconds for `poll`, capped at one hour.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (s, atto) = duration.components
        if s >= 3600 { return 3_600_000 }
        let ms = s * 1000 + (atto + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(max(1, ms))
    }
}
