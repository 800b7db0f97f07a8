import NetClockPlatform
import Synchronization

/// A non-blocking UDP socket bound to a local address, that receives from and sends to any peer:
/// the server side of `UDPSocket`, for the loopback fake NTP server.
///
/// It owns its descriptor (a ``FileDescriptor``): ``close()`` or releasing the socket closes it
/// exactly once. It may be shared between threads, but must not be closed while another thread
/// still uses it.
package final class UDPServerSocket: Sendable {
    /// The address the socket is bound to, with the port the kernel chose for port 0.
    package let localAddress: SocketAddress
    private let descriptor: Mutex<FileDescriptor?>

    /// The outcome of one non-blocking ``receive(into:)``.
    package enum Received: Hashable, Sendable {
        /// A datagram of `count` bytes (at most the buffer's size) from `sender`.
        case datagram(count: Int, sender: SocketAddress)
        /// Nothing is waiting (or the socket is closed).
        case empty
        /// A datagram or error not worth reporting (such as an ICMP error); try again.
        case ignored
    }

    /// Opens a non-blocking UDP socket and binds it to `address`.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `socket`,
    ///   `bind <address>` or `getsockname`.
    package init(binding address: SocketAddress) throws(TransportError) {
        let socket = try FileDescriptor.socket(
            boundTo: address, type: Syscalls.datagramType, nonBlocking: true)
        self.localAddress = try socket.boundAddress()
        self.descriptor = Mutex(consume socket)
    }

    /// Closes the socket; later calls do nothing.
    package func close() {
        descriptor.close()
    }

    /// Reads one waiting datagram into `buffer`, without blocking.
    package func receive(into buffer: inout [UInt8]) -> Received {
        guard let fd = descriptor.rawValue else { return .empty }
        switch buffer.withUnsafeMutableBytes({ ServerSyscalls.receiveFrom(fd, $0) }) {
        case .success((let count, let sender?)): return .datagram(count: count, sender: sender)
        case .success((_, nil)): return .ignored
        case .failure(.wouldBlock): return .empty
        case .failure: return .ignored
        }
    }

    /// Sends `bytes` as one datagram to `destination`.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `sendto`.
    package func send(_ bytes: [UInt8], to destination: SocketAddress) throws(TransportError) {
        guard let fd = descriptor.rawValue else { throw .closed("sendto", "socket") }
        if case .failure(let code) = bytes.withUnsafeBytes({ ServerSyscalls.send(fd, $0, to: destination) }) {
            throw .failed("sendto", errno: code)
        }
    }

    /// Waits until a datagram is waiting, `channel` is woken, or `milliseconds` pass (−1: without
    /// limit).
    package func waitForDatagram(orWakeFrom channel: WakeChannel, milliseconds: Int32) -> WaitOutcome {
        channel.wait(orReadable: descriptor.rawValue ?? -1, milliseconds: milliseconds)
    }
}
