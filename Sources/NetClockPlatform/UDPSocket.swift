/// A connected UDP socket: the kernel only delivers datagrams from the address it is connected to,
/// and reports ICMP port unreachable from it as `ECONNREFUSED`.
///
/// The socket owns its descriptor and closes it in `deinit`, so no path can leak it; `close()` may be
/// called earlier and is idempotent.
package final class UDPSocket {
    private var descriptor: Int32
    /// The address the socket is connected to.
    package let remote: SocketAddress

    /// Opens a UDP socket and connects it to `remote`.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when the socket cannot be
    ///   created or connected.
    package init(connectingTo remote: SocketAddress) throws(TransportError) {
        let (fd, code) = Syscalls.socket(family: remote.familyConstant, type: Syscalls.datagramType)
        guard fd >= 0 else {
            throw .systemCall(operation: "socket", errno: code, reason: Syscalls.describe(code))
        }
        let connectError = remote.withSockAddr { Syscalls.connect(fd, $0, $1) }
        guard connectError == 0 else {
            Syscalls.close(fd)
            throw .systemCall(
                operation: "connect to \(remote)", errno: connectError,
                reason: Syscalls.describe(connectError))
        }
        self.descriptor = fd
        self.remote = remote
    }

    deinit {
        if descriptor >= 0 { Syscalls.close(descriptor) }
    }

    /// Closes the descriptor now; later calls do nothing.
    package func close() {
        if descriptor >= 0 {
            Syscalls.close(descriptor)
            descriptor = -1
        }
    }

    /// The local address the kernel chose for this socket.
    package var localAddress: SocketAddress? {
        descriptor >= 0 ? Syscalls.localAddress(descriptor) : nil
    }

    /// Sends one datagram.
    package func send(_ bytes: [UInt8]) throws(TransportError) {
        guard descriptor >= 0 else {
            throw .systemCall(operation: "send", errno: 9, reason: "socket is closed")
        }
        let fd = descriptor
        let (sent, code) = bytes.withUnsafeBytes { Syscalls.send(fd, $0) }
        if sent < 0 {
            if code == Syscalls.connectionRefused { throw .connectionRefused(address: remote) }
            throw .systemCall(operation: "send to \(remote)", errno: code, reason: Syscalls.describe(code))
        }
    }

    /// Waits up to `timeout` for one datagram and returns its bytes (at most `capacity`; longer
    /// datagrams are truncated by the kernel), or nil when the time ran out.
    ///
    /// `EINTR` during the wait is retried with the remaining time, measured on the boot-time clock.
    package func receive(
        timeout: Duration, capacity: Int = 1024
    ) throws(TransportError) -> [UInt8]? {
        guard descriptor >= 0 else {
            throw .systemCall(operation: "receive", errno: 9, reason: "socket is closed")
        }
        let deadline = Syscalls.clockTime(.bootTime) + timeout
        var buffer = [UInt8](repeating: 0, count: max(1, capacity))
        while true {
            let remaining = deadline - Syscalls.clockTime(.bootTime)
            guard remaining > .zero else { return nil }
            let ready = Syscalls.pollReadable(descriptor, milliseconds: Self.milliseconds(remaining))
            if ready < 0 {
                throw .systemCall(operation: "poll", errno: -ready, reason: Syscalls.describe(-ready))
            }
            if ready == 0 { continue }
            let fd = descriptor
            let (count, code) = buffer.withUnsafeMutableBytes { Syscalls.receive(fd, $0) }
            if count >= 0 { return Array(buffer.prefix(count)) }
            if code == Syscalls.wouldBlock { continue }
            if code == Syscalls.connectionRefused { throw .connectionRefused(address: remote) }
            throw .systemCall(
                operation: "receive from \(remote)", errno: code, reason: Syscalls.describe(code))
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
