import NetClockPlatform

/// The byte stream a ``TLSConnection`` runs over: a connected TCP socket, read and written with
/// relative timeouts (the TLS layer keeps the deadline and passes what remains of it).
package protocol TLSTransport: AnyObject {
    /// Sends as much of `bytes` as fits within `timeout`; returns how many bytes were sent.
    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(TransportError) -> Int
    /// Waits up to `timeout` for data and reads at most `maximum` bytes of it.
    func receive(maximum: Int, timeout: Duration) throws(TransportError) -> TCPConnection.Received
    /// Closes the socket; later calls do nothing.
    func close()
}

/// A client's connection: established with `waitUntilConnected(timeout:)` before the handshake.
extension TCPConnection: TLSTransport {}
