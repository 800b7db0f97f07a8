import NetClockPlatform
import NetClockTestSupport

/// The byte stream one loopback HTTP(S) time server connection is served over: the accepted TCP
/// socket itself, or a TLS connection over it. Each keeps the raw socket, for the misbehaviours
/// that act below TLS (cutting the connection, injecting an alert record).
protocol HTTPTimeServerStream: AnyObject {
    /// The accepted TCP socket.
    var raw: AcceptedTCPConnection { get }
    /// Waits up to `milliseconds` for data; nil when none came, the client went away, or the
    /// server is stopping.
    func receive(maximum: Int, milliseconds: Int32) -> [UInt8]?
    /// Sends all of `bytes` (over TLS: as one record); false when the client has gone.
    func sendAll(_ bytes: ArraySlice<UInt8>) -> Bool
    /// Ends the connection as a well-behaved server does (over TLS: with close_notify); the core
    /// closes the socket afterwards.
    func finish()
}

/// Plain HTTP: the accepted socket as it is.
final class PlainHTTPTimeServerStream: HTTPTimeServerStream {
    let raw: AcceptedTCPConnection
    private let stop: WakeChannel

    init(_ connection: AcceptedTCPConnection, stop: WakeChannel) {
        self.raw = connection
        self.stop = stop
    }

    func receive(maximum: Int, milliseconds: Int32) -> [UInt8]? {
        guard raw.waitReadable(orWakeFrom: stop, milliseconds: milliseconds) == .readable else { return nil }
        return raw.receive(maximum: maximum)
    }

    func sendAll(_ bytes: ArraySlice<UInt8>) -> Bool { raw.sendAll(bytes) }

    func finish() {}
}
