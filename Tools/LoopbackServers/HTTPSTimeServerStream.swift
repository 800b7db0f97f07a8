import NetClockPlatform
import NetClockTLS
import NetClockTestSupport

/// HTTPS: a TLS connection over the accepted socket, after a server handshake with the server's
/// ``HTTPSTimeServerTLS`` settings.
final class HTTPSTimeServerStream: HTTPTimeServerStream {
    /// A fatal `internal_error` alert record in the clear (TLS 1.2 record version), as an on-path
    /// attacker would inject it: a real alert inside the session would be encrypted.
    static let injectedAlert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x50]

    let raw: AcceptedTCPConnection
    private let connection: TLSConnection

    /// Runs the server handshake on `raw`; nil when it fails (the client refused the certificate,
    /// went away, or the server is stopping).
    init?(_ raw: AcceptedTCPConnection, stop: WakeChannel, tls: HTTPSTimeServerTLS) {
        self.raw = raw
        do {
            connection = try TLSConnection.accept(
                over: AcceptedByteStream(raw, stop: stop), configuration: tls.serverConfiguration,
                timeout: tls.handshakeTimeout)
        } catch {
            return nil
        }
    }

    func receive(maximum: Int, milliseconds: Int32) -> [UInt8]? {
        guard
            case .bytes(let bytes) = try? connection.read(
                maximum: maximum, timeout: .milliseconds(milliseconds))
        else { return nil }
        return bytes
    }

    func sendAll(_ bytes: ArraySlice<UInt8>) -> Bool {
        do {
            try connection.write(Array(bytes), timeout: .seconds(5))
            return true
        } catch {
            return false
        }
    }

    func finish() { connection.close(timeout: .milliseconds(200)) }

    /// Reads what the client sends before a handshake (its ClientHello) and never answers, until
    /// the client goes away, the server stops, or `limit` passes.
    static func stall(_ raw: AcceptedTCPConnection, stop: WakeChannel, limit: Duration) {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while clock.now < end {
            switch raw.waitReadable(orWakeFrom: stop, milliseconds: 100) {
            case .woken: return
            case .timedOut: continue
            case .readable: guard raw.receive(maximum: 4096) != nil else { return }
            }
        }
    }
}
