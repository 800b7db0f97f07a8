/// A connected, ordered byte stream read and written with *relative* timeouts: a TCP socket
/// (``TCPConnection``), or a TLS connection over one (`NetClockTLS`'s `TLSConnection`, which itself
/// runs over a `ByteStream` of `TransportError`). The one stream type of the package: the TLS
/// engine reads and writes its transport through it, the HTTP time client its `http://` and
/// `https://` connections, and the test servers' accepted sockets adopt it too.
///
/// Nothing blocks without a bound: each call waits at most its `timeout`, so the type needs no
/// clock; callers keep their own deadline and pass what remains of it, in slices short enough to
/// notice that they were abandoned. Meant for one thread at a time.
package protocol ByteStream<Failure>: AnyObject {
    /// Why a call failed: ``TransportError`` for a socket, the TLS layer's error for TLS.
    associatedtype Failure: Error

    /// The other end, for messages: an address such as `127.0.0.1:8080`.
    var peer: String { get }

    /// Sends as much of `bytes` as fits within `timeout` and returns how many bytes were sent.
    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(Failure) -> Int

    /// Waits up to `timeout` for data and returns at most `maximum` (at least 1) bytes of it,
    /// ``ReceivedBytes/endOfStream`` once the peer closed the stream cleanly, or
    /// ``ReceivedBytes/timedOut``.
    func receive(maximum: Int, timeout: Duration) throws(Failure) -> ReceivedBytes

    /// Closes the stream (over TLS, after a brief close_notify); later calls do nothing.
    func close()
}

/// What one ``ByteStream/receive(maximum:timeout:)`` produced.
package enum ReceivedBytes: Hashable, Sendable {
    /// Between 1 and `maximum` bytes.
    case bytes([UInt8])
    /// The peer closed its side of the stream in order (a TCP FIN, a TLS close_notify); nothing
    /// more will arrive.
    case endOfStream
    /// Nothing arrived within the timeout (or the wait was interrupted by a signal).
    case timedOut
}
