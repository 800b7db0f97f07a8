import NetClockPlatform

/// The connected byte stream ``HTTPHeadClient`` writes its request to and reads the response head
/// from: a plain TCP socket (`http://`) or a TLS connection over one (`https://`). Every call waits
/// at most its `timeout`; the client keeps the deadline and passes what remains of it, in slices.
protocol HTTPByteStream: AnyObject {
    /// The peer, for reasons: an address such as `127.0.0.1:8080`.
    var peer: String { get }
    /// Sends as much of `bytes` as fits within `timeout`; returns how many bytes were sent.
    /// - Throws: ``HTTPStreamFailure`` saying why the stream broke.
    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(HTTPStreamFailure) -> Int
    /// Waits up to `timeout` for data and returns at most `maximum` bytes, `.endOfStream` when the
    /// peer closed the stream cleanly, or `.timedOut`.
    /// - Throws: ``HTTPStreamFailure`` saying why the stream broke.
    func receive(maximum: Int, timeout: Duration) throws(HTTPStreamFailure) -> TCPConnection.Received
    /// Closes the stream (over TLS: a close_notify first, briefly); later calls do nothing.
    func close()
}

/// Why an ``HTTPByteStream`` broke: the error code to report and a readable reason.
struct HTTPStreamFailure: Error {
    /// The code of the measurement's error: `transport` for a socket, `tls` for a TLS record
    /// failure or an alert.
    var code: HTTPTimeError.Code
    /// What happened, e.g. `the peer closed the connection without a TLS close_notify`.
    var reason: String
}

/// A plain TCP connection is an `http://` stream as it is.
final class TCPByteStream: HTTPByteStream {
    private let connection: TCPConnection

    /// The stream over `connection`, which it owns from now on.
    init(_ connection: TCPConnection) {
        self.connection = connection
    }

    var peer: String { "\(connection.remote)" }

    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(HTTPStreamFailure) -> Int {
        do {
            return try connection.send(bytes, timeout: timeout)
        } catch {
            throw HTTPStreamFailure(code: .transport, reason: error.description)
        }
    }

    func receive(maximum: Int, timeout: Duration) throws(HTTPStreamFailure) -> TCPConnection.Received {
        do {
            return try connection.receive(maximum: maximum, timeout: timeout)
        } catch {
            throw HTTPStreamFailure(code: .transport, reason: error.description)
        }
    }

    func close() { connection.close() }
}
