import NetClockPlatform
import NetClockTLS
import TimeValues

/// The steps of one ``HTTPHeadClient`` exchange, each ending early with a ``Stop`` that carries the
/// result.
///
/// The clock is read once per event: a reading taken for one step (the send instant found by
/// ``wait(until:)``, the arrival of a chunk of the head, the instant a deadline was found passed)
/// is passed on to the next check rather than read again.
struct HTTPExchangeRun {
    struct Stop: Error {
        var result: HTTPExchangeOutcome.Result
        /// The reading at which the failure was noticed, when a deadline check took one.
        var noticed: MonotonicInstant? = nil
        /// The HTTP status that caused the failure (a proxy refusing a tunnel).
        var statusCode: Int? = nil
    }

    /// Who sends a response head: the origin (through a tunnel, or the proxy for `http://`), or
    /// the proxy answering `CONNECT`, whose failures have their own codes.
    enum HeadSender {
        case server
        case tunnelProxy
    }

    let client: HTTPHeadClient
    let request: HTTPRequestTarget
    let end: MonotonicInstant
    let timeout: Duration
    let isAbandoned: () -> Bool
    /// The start of the exchange until the request is written, then the instant it was.
    var sent: MonotonicInstant

    private var clock: any MonotonicClock { client.clock }

    /// Time left before `end` at `now` (nil: read the clock); stops when the exchange was abandoned
    /// or the time is up.
    private func remaining(_ timeoutReason: @autoclosure () -> String, at now: MonotonicInstant? = nil)
        throws(Stop) -> Duration
    {
        if isAbandoned() { throw Stop(result: .cancelled) }
        let now = now ?? clock.now()
        let left = end - now
        guard left > .zero else {
            throw Stop(result: .failed(.timeout, timeoutReason()), noticed: now)
        }
        return min(left, HTTPHeadClient.slice)
    }

    static func failure(_ code: HTTPTimeError.Code, _ reason: String)
        -> Stop
    {
        Stop(result: .failed(code, reason))
    }

    /// The code and reason of a failed send or receive: a socket's failure is `transport`; over TLS
    /// a record failure or an alert is `tls`, and a socket failure under it stays `transport`.
    private static func streamFailure(_ error: any Error) -> (HTTPTimeError.Code, String) {
        guard let error = error as? TLSError else { return (.transport, "\(error)") }
        return (error.code == .transport ? .transport : .tls, "TLS \(error)")
    }

    /// Connects, for `https://` through a proxy opens the `CONNECT` tunnel, and for `https://`
    /// runs the TLS handshake: the stream the request goes on.
    func open() throws(Stop) -> any ByteStream {
        let connection = try connect()
        guard request.isSecure else { return connection }
        if let proxy = request.proxy {
            do {
                try openTunnel(through: proxy, on: connection)
            } catch {
                connection.close()
                throw error
            }
        }
        return try secure(connection)
    }

    /// Runs the TLS handshake over `connection`, with the URL's host as the server name, within
    /// what remains before `end`.
    private func secure(_ connection: TCPConnection) throws(Stop) -> TLSConnection {
        let peer = connection.peer
        let left = end - clock.now()
        guard left > .zero else {
            throw Stop(
                result: .failed(
                    .timeout, "no time left for the TLS handshake with \(peer)")
            )
        }
        do {
            return try TLSConnection.connect(
                over: connection, serverName: request.host, configuration: client.tlsConfiguration,
                timeout: left, isAbandoned: isAbandoned)
        } catch {
            if isAbandoned() { throw Stop(result: .cancelled) }
            throw HTTPTLSFailure.stop(for: error, peer: peer, timeout: timeout)
        }
    }

    /// Resolves the host (the proxy's, through one) and connects to its addresses in the
    /// resolver's order until one accepts.
    func connect() throws(Stop) -> TCPConnection {
        let addresses: [SocketAddress]
        let unreachable: HTTPTimeError.Code = request.proxy == nil ? .transport : .proxyUnreachable
        let what = request.proxy.map { "the proxy \($0)" } ?? request.hostHeader
        do {
            addresses = try Resolver.resolve(
                request.connectionHost, port: request.connectionPort, limit: 8, socketKind: .stream)
        } catch {
            let prefix = request.proxy == nil ? "" : "cannot resolve the proxy: "
            throw Self.failure(unreachable, prefix + error.description)
        }
        var problems: [String] = []
        for address in addresses {
            let connection: TCPConnection
            do {
                connection = try TCPConnection(startingConnectionTo: address)
                while try !connection.waitUntilConnected(
                    timeout: remaining("could not connect to \(address) within \(timeout.formattedSeconds)"))
                {}
                return connection
            } catch let stop as Stop {
                throw stop
            } catch let error as TransportError {
                problems.append(Self.describe(error, connecting: address))
            } catch {
                problems.append("\(address): \(error)")
            }
        }
        throw Self.failure(
            unreachable, "cannot connect to \(what): " + problems.joined(separator: "; "))
    }

    /// Waits, with the connection open, until `instant` (when given); returns the reading that found
    /// it reached (nil without an instant).
    func wait(until instant: MonotonicInstant?) throws(Stop) -> MonotonicInstant? {
        guard let instant else { return nil }
        while true {
            let now = clock.now()
            let wait = instant - now
            guard wait > .zero else { return now }
            guard CancellableWait.sleep(wait, isCancelled: isAbandoned) else {
                throw Stop(result: .cancelled)
            }
        }
    }

    /// Writes the whole request; sets ``sent`` just before its first byte goes out: to `reading`,
    /// when the caller has just read the clock (the end of ``wait(until:)``), else to a fresh one.
    mutating func send(_ bytes: [UInt8], on connection: any ByteStream, at reading: MonotonicInstant?)
        throws(Stop)
    {
        sent = reading ?? clock.now()
        var now: MonotonicInstant? = sent
        var offset = 0
        while offset < bytes.count {
            let slice = try remaining(
                "could not send the request within \(timeout.formattedSeconds)", at: now)
            now = nil
            do {
                offset += try connection.send(bytes[offset...], timeout: slice)
            } catch {
                if isAbandoned() { throw Stop(result: .cancelled) }
                let (code, reason) = Self.streamFailure(error)
                throw Self.failure(
                    code, "sending the request to \(connection.peer) failed: \(reason)")
            }
        }
    }

    /// Reads until a final (non-1xx) response head is complete and returns it with the instant it
    /// was and how many bytes followed it in the last read. Never reads more than the head limit in
    /// all.
    func readHead(from connection: any ByteStream, sender: HeadSender = .server) throws(Stop) -> (
        head: HTTPResponseHead, received: MonotonicInstant, extra: Int
    ) {
        let fromProxy = sender == .tunnelProxy
        let who = fromProxy ? "the proxy \(connection.peer)" : "\(connection.peer)"
        let answer = fromProxy ? "answer to CONNECT" : "response head"
        let limit = client.maximumHeadBytes
        var buffer: [UInt8] = []
        var consumed = 0
        var searchFrom = 0
        // The arrival of the last chunk, which is also the next deadline check's reading.
        var arrival: MonotonicInstant?
        while true {
            let slice = try remaining(
                "no complete \(answer) from \(who) within \(timeout.formattedSeconds)"
                    + " (\(consumed + buffer.count) bytes received)", at: arrival)
            let room = limit - consumed - buffer.count
            guard room > 0 else {
                throw Self.failure(
                    fromProxy ? .proxyMalformedResponse : .headersTooLarge,
                    "the \(answer) is longer than \(limit) bytes")
            }
            let received: ReceivedBytes
            do {
                received = try connection.receive(maximum: min(room, 4096), timeout: slice)
            } catch {
                if isAbandoned() { throw Stop(result: .cancelled) }
                let (code, reason) = Self.streamFailure(error)
                throw Self.failure(
                    fromProxy ? .proxyClosed : code,
                    "receiving the \(answer) from \(who) failed after \(consumed + buffer.count)"
                        + " bytes of the head: \(reason)")
            }
            let instant = clock.now()
            arrival = instant
            switch received {
            case .timedOut:
                continue
            case .endOfStream:
                let total = consumed + buffer.count
                let what =
                    total == 0
                    ? "without sending a response"
                    : "after \(total) bytes, before the response head was complete"
                throw Self.failure(
                    fromProxy ? .proxyClosed : .transport, "\(who) closed the connection \(what)")
            case .bytes(let chunk):
                buffer += chunk
            }
            while let end = HTTPResponseHead.endOfHead(in: buffer, searchingFrom: searchFrom) {
                let head: HTTPResponseHead
                do {
                    head = try HTTPResponseHead(parsing: buffer[..<end])
                } catch {
                    throw Self.failure(
                        fromProxy ? .proxyMalformedResponse : .malformedResponse,
                        "the \(answer) is malformed: \(error)")
                }
                if head.statusCode == 101 {
                    throw Self.failure(
                        fromProxy ? .proxyMalformedResponse : .malformedResponse,
                        "\(fromProxy ? who : "the server") switched protocols, which was not asked for")
                }
                guard (100..<200).contains(head.statusCode) else {
                    return (head, instant, buffer.count - end)
                }
                // An informational response (such as 103 Early Hints); the final one follows.
                consumed += end
                buffer.removeFirst(end)
                searchFrom = 0
            }
            searchFrom = max(0, buffer.count - 2)
        }
    }

    private static func describe(_ error: TransportError, connecting address: SocketAddress) -> String {
        switch error {
        case .connectionRefused:
            return "connection refused by \(address)"
        case .systemCall(_, _, let reason):
            return "\(address): \(reason)"
        default:
            return "\(address): \(error)"
        }
    }
}
