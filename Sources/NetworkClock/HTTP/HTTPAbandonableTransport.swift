import NetClockPlatform
import NetClockTLS

/// The TCP socket under an `https://` exchange's TLS connection, as the ``TLSTransport`` it runs
/// over: every wait is cut to ``HTTPHeadClient/slice``, and once the exchange is abandoned (its
/// task cancelled or its caller's timer fired) the next call fails, so a TLS handshake or read
/// that would otherwise wait out its whole timeout ends within one slice.
final class HTTPAbandonableTransport: TLSTransport {
    /// The reason of the failure that ends an abandoned exchange's TLS call.
    static let abandonedReason = "the exchange was abandoned"

    private let connection: TCPConnection
    private let isAbandoned: () -> Bool

    /// Wraps `connection`, which it owns from now on.
    init(_ connection: TCPConnection, isAbandoned: @escaping () -> Bool) {
        self.connection = connection
        self.isAbandoned = isAbandoned
    }

    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(TransportError) -> Int {
        try checkAbandoned("send")
        return try connection.send(bytes, timeout: min(timeout, HTTPHeadClient.slice))
    }

    func receive(maximum: Int, timeout: Duration) throws(TransportError) -> TCPConnection.Received {
        try checkAbandoned("receive")
        return try connection.receive(maximum: maximum, timeout: min(timeout, HTTPHeadClient.slice))
    }

    func close() { connection.close() }

    private func checkAbandoned(_ operation: String) throws(TransportError) {
        // EINTR: the call was interrupted on purpose.
        if isAbandoned() { throw .systemCall(operation: operation, errno: 4, reason: Self.abandonedReason) }
    }
}
