import NetClockPlatform
import NetClockTestSupport
import SNTP
import TimeValues

/// One connection to the loopback HTTP(S) time server, served on its own thread: (HTTPS: run the
/// TLS handshake) read the request head, wait, stamp, wait, answer (or misbehave), and let the
/// core close the socket.
struct HTTPTimeServerConnection {
    let socket: AcceptedTCPConnection
    let core: HTTPTimeServerCore

    /// The longest a stalled handshake holds its connection.
    private static let stallLimit = Duration.seconds(30)

    /// The longest request head accepted, and how long a client may take to send it.
    private static let maximumHead = 16 * 1024
    private static let readTimeoutMilliseconds: Int32 = 5_000

    func serve() {
        let connection: any HTTPTimeServerStream
        if let tls = core.tls {
            if core.configuration.misbehaviour == .stalledHandshake {
                HTTPSTimeServerStream.stall(socket, stop: core.stopSignal, limit: Self.stallLimit)
                return
            }
            guard let secured = HTTPSTimeServerStream(socket, stop: core.stopSignal, tls: tls) else { return }
            connection = secured
        } else {
            connection = PlainHTTPTimeServerStream(socket, stop: core.stopSignal)
        }
        serve(over: connection)
    }

    private func serve(over connection: any HTTPTimeServerStream) {
        guard let head = readHead(from: connection) else { return }
        let wall = SystemWallClock()
        guard var request = HTTPTimeServerRequest.parse(head: head, receivedAt: wall.now()) else { return }
        let (configuration, delayBefore, delayAfter) = core.snapshotForRequest()
        guard core.stopSignal.sleep(for: delayBefore) else { return }
        let serverTime = wall.now() + configuration.offset
        let response = HTTPTimeServerResponse(
            method: request.method, configuration: configuration, serverTime: serverTime)
        request.statusCode = response.statusCode
        core.append(request)
        guard core.stopSignal.sleep(for: delayAfter) else { return }
        switch configuration.misbehaviour {
        case .slowHeaders(let pause):
            for index in response.head.indices {
                guard connection.sendAll(response.head[index...index]),
                    core.stopSignal.sleep(for: pause)
                else { return }
            }
            _ = connection.sendAll(response.body[...])
        case .headNotAllowedTricklingBody(_, let pause):
            guard connection.sendAll(response.head[...]) else { return }
            var offset = 0
            while offset < response.body.count {
                let end = min(response.body.count, offset + 1024)
                guard connection.sendAll(response.body[offset..<end]),
                    core.stopSignal.sleep(for: pause)
                else { return }
                offset = end
            }
        case .closeBeforeHeadersEnd(let count):
            let partial = response.head.prefix(max(0, min(count, response.head.count - 4)))
            if !partial.isEmpty { _ = connection.sendAll(partial) }
            connection.finish()
        case .cutBetweenRecords(let count):
            let partial = response.head.prefix(max(0, min(count, response.head.count - 4)))
            let statusLine = (partial.firstIndex(of: 10) ?? partial.endIndex - 1) + 1
            for record in [partial[..<statusLine], partial[statusLine...]] where !record.isEmpty {
                guard connection.sendAll(record) else { return }
            }
            connection.raw.shutdown()
        case .alertInsideHeaders(let count):
            let partial = response.head.prefix(max(0, min(count, response.head.count - 4)))
            if !partial.isEmpty { guard connection.sendAll(partial) else { return } }
            _ = connection.raw.sendAll(HTTPSTimeServerStream.injectedAlert[...])
            connection.raw.shutdown()
        default:
            _ = connection.sendAll((response.head + response.body)[...])
            connection.finish()
        }
    }

    /// Reads until the blank line that ends the request head; nil if the client goes away, sends
    /// too much, is too slow, or the server stops.
    private func readHead(from connection: any HTTPTimeServerStream) -> [UInt8]? {
        var bytes: [UInt8] = []
        let terminator: [UInt8] = [13, 10, 13, 10]
        while bytes.count < Self.maximumHead {
            guard let chunk = connection.receive(maximum: 4096, milliseconds: Self.readTimeoutMilliseconds)
            else {
                return nil
            }
            let searchFrom = max(0, bytes.count - 3)
            bytes += chunk
            if let end = Self.find(terminator, in: bytes, from: searchFrom) {
                return Array(bytes[..<end])
            }
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
