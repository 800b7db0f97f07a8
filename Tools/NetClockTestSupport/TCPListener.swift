import NetClockPlatform
import Synchronization

/// A listening TCP socket (with `SO_REUSEADDR`), for the loopback HTTP time server.
///
/// It owns its descriptor (a ``FileDescriptor``): ``close()`` or releasing the listener closes it
/// exactly once. It may be shared between threads, but must not be closed while another thread
/// still uses it.
package final class TCPListener: Sendable {
    /// The address listened on, with the port the kernel chose for port 0.
    package let localAddress: SocketAddress
    private let descriptor: Mutex<FileDescriptor?>

    /// Opens a TCP socket, binds it to `address` and listens with room for `backlog` pending
    /// connections.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `socket`,
    ///   `bind <address>`, `listen` or `getsockname`.
    package init(binding address: SocketAddress, backlog: Int32 = 64) throws(TransportError) {
        let socket = try FileDescriptor.socket(
            boundTo: address, type: Syscalls.streamType, reuseAddress: true)
        if case .failure(let code) = ServerSyscalls.listen(socket.rawValue, backlog: backlog) {
            throw .failed("listen", errno: code)
        }
        self.localAddress = try socket.boundAddress()
        self.descriptor = Mutex(consume socket)
    }

    /// Closes the socket; later calls do nothing.
    package func close() {
        descriptor.close()
    }

    /// Waits until a connection is pending, `channel` is woken, or `milliseconds` pass (−1:
    /// without limit).
    package func waitForConnection(orWakeFrom channel: WakeChannel, milliseconds: Int32) -> WaitOutcome {
        channel.wait(orReadable: descriptor.rawValue ?? -1, milliseconds: milliseconds)
    }

    /// Accepts a pending connection; nil when none is pending, on error, or once closed. Blocks
    /// while none is pending, so wait with ``waitForConnection(orWakeFrom:milliseconds:)`` first.
    package func accept() -> AcceptedTCPConnection? {
        guard let fd = descriptor.rawValue else { return nil }
        guard case .success(let client) = ServerSyscalls.accept(fd) else { return nil }
        return AcceptedTCPConnection(FileDescriptor(taking: client))
    }
}

/// A blocking TCP connection accepted by a ``TCPListener``, served by one thread while another may
/// ``shutdown()`` it to stop that thread.
///
/// It owns its descriptor (a ``FileDescriptor``): ``close()`` or releasing the connection closes
/// it exactly once, and ``shutdown()`` never touches a descriptor that is already closed.
package final class AcceptedTCPConnection: Sendable {
    private let descriptor: Mutex<FileDescriptor?>

    init(_ descriptor: consuming FileDescriptor) {
        self.descriptor = Mutex(descriptor)
    }

    /// Waits until data (or the end of the stream) is waiting, `channel` is woken, or
    /// `milliseconds` pass (−1: without limit).
    package func waitReadable(orWakeFrom channel: WakeChannel, milliseconds: Int32) -> WaitOutcome {
        channel.wait(orReadable: descriptor.rawValue ?? -1, milliseconds: milliseconds)
    }

    /// Reads what is waiting, at most `maximum` bytes; nil at the end of the stream, on error, or
    /// when nothing is waiting (so wait with ``waitReadable(orWakeFrom:milliseconds:)`` first).
    package func receive(maximum: Int) -> [UInt8]? {
        guard let fd = descriptor.rawValue else { return nil }
        var buffer = [UInt8](repeating: 0, count: max(1, maximum))
        guard case .success(let count) = buffer.withUnsafeMutableBytes({ Syscalls.receive(fd, $0) }),
            count > 0
        else { return nil }
        return Array(buffer[..<count])
    }

    /// Writes all of `bytes`, blocking as long as the peer reads; false when the peer has gone, the
    /// connection was shut down, or it is closed.
    package func sendAll(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let fd = descriptor.rawValue else { return false }
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            guard case .success(let written) = bytes[offset...].withUnsafeBytes({ Syscalls.send(fd, $0) }),
                written > 0
            else { return false }
            offset += written
        }
        return true
    }

    /// Sends each later write in its own TCP segment, at once (`TCP_NODELAY`), as a server that
    /// trickles bytes one at a time needs; false when the option could not be set.
    @discardableResult
    package func sendEachWriteAtOnce() -> Bool {
        guard let fd = descriptor.rawValue else { return false }
        return (try? ServerSyscalls.setNoDelay(fd).get()) != nil
    }

    /// Shuts the connection down in both directions, waking a thread blocked on it; does nothing
    /// once it is closed.
    package func shutdown() {
        descriptor.withLock { descriptor in
            if let fd = descriptor?.rawValue { ServerSyscalls.shutdownBoth(fd) }
        }
    }

    /// Closes the connection; later calls do nothing.
    package func close() {
        descriptor.close()
    }
}
