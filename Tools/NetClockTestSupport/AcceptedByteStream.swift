import NetClockPlatform
import NetClockTLS

/// A server's side of a TCP connection (an ``AcceptedTCPConnection``) as a ``ByteStream``, for
/// loopback test servers (the transport their TLS runs over).
///
/// Waits for data in `poll` with the remaining time, and ends early when `stop` is woken (the
/// server is shutting down). Sends block until the kernel takes the bytes, which for the small
/// messages of a handshake and of NTS-KE is at once.
package final class AcceptedByteStream: ByteStream {
    /// The accepted socket.
    private let connection: AcceptedTCPConnection
    /// Woken when the server stops.
    private let stop: WakeChannel

    /// Wraps `connection`; a wake of `stop` ends any wait for data with an error.
    package init(_ connection: AcceptedTCPConnection, stop: WakeChannel) {
        self.connection = connection
        self.stop = stop
    }

    /// The client, for messages (an accepted connection does not keep its address).
    package var peer: String { "the client" }

    /// Sends all of `bytes`.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when the peer has gone.
    package func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(TransportError) -> Int {
        guard connection.sendAll(bytes) else {
            throw .systemCall(
                // The accepted connection does not say why a send failed.
                operation: "send", errno: .brokenPipe,
                reason: "the peer has gone or the connection is closed")
        }
        return bytes.count
    }

    /// Waits up to `timeout` for data.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when the server stops.
    package func receive(maximum: Int, timeout: Duration) throws(TransportError) -> ReceivedBytes {
        switch connection.waitReadable(orWakeFrom: stop, milliseconds: TCPConnection.milliseconds(timeout)) {
        case .timedOut:
            return .timedOut
        case .woken:
            throw .systemCall(operation: "receive", errno: .interrupted, reason: "the server is stopping")
        case .readable:
            guard let bytes = connection.receive(maximum: maximum) else { return .endOfStream }
            return .bytes(bytes)
        }
    }

    /// Closes the connection.
    package func close() {
        connection.close()
    }
}
