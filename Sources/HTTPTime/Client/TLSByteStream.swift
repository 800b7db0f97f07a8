import NetClockPlatform
import NetClockTLS

/// An `https://` stream: a ``TLSConnection`` whose handshake has finished, read and written with
/// the same sliced timeouts as a plain socket. A read that times out is `.timedOut` (the partial
/// record stays buffered in OpenSSL and the next read goes on with it); a close_notify is the end
/// of the stream; a connection cut without one, a bad record or an alert is a failure.
final class TLSByteStream: HTTPByteStream {
    private let connection: TLSConnection
    let peer: String

    /// The stream over `connection`, which it owns from now on.
    init(_ connection: TLSConnection, peer: String) {
        self.connection = connection
        self.peer = peer
    }

    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(HTTPStreamFailure) -> Int {
        do {
            try connection.write(Array(bytes), timeout: timeout)
            return bytes.count
        } catch {
            throw Self.failure(error)
        }
    }

    func receive(maximum: Int, timeout: Duration) throws(HTTPStreamFailure) -> TCPConnection.Received {
        do {
            switch try connection.read(maximum: maximum, timeout: timeout) {
            case .bytes(let bytes): return .bytes(bytes)
            case .endOfStream: return .endOfStream
            }
        } catch  where error.code == .timedOut {
            return .timedOut
        } catch {
            throw Self.failure(error)
        }
    }

    func close() { connection.close(timeout: .milliseconds(50)) }

    /// The validity periods of the server's verified chain, leaf first.
    var verifiedChain: [CertificateValidity] { connection.verifiedChain }

    /// A socket failure stays a transport failure; everything else is TLS's.
    private static func failure(_ error: TLSError) -> HTTPStreamFailure {
        HTTPStreamFailure(code: error.code == .transport ? .transport : .tls, reason: "TLS \(error)")
    }
}
