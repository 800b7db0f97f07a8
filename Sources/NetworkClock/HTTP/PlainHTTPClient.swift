import Foundation
import HTTPTimeParsing
import NetClockPlatform
import SNTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// NetworkClock's own minimal HTTP/1.1 client for `http://` URLs, used instead of URLSession, whose
/// Linux implementation crashes the process when a server closes the connection inside the response
/// head (swift-corelibs-foundation issue 5285), rejects IPv6-literal URLs, and buffers whole bodies.
///
/// One exchange: resolve the host (`getaddrinfo`, TCP hints), connect to its addresses in turn
/// (non-blocking), optionally wait until a planned send instant with the connection already open,
/// write one `HEAD` or `GET` with `Connection: close`, read until the empty line that ends the
/// response head — at most ``maximumHeadBytes``, never the body — and close. The receive instant
/// is taken when the head is complete. Informational (1xx) heads before the final one are skipped.
///
/// Every wait is a `poll(2)` with a relative timeout of at most ``slice``, so an exchange notices
/// within that time that it was abandoned (its task cancelled or its caller's timer fired), and
/// timeouts keep working when the wall clock is faked. Each exchange runs on the ``BlockingPool``,
/// so it never occupies one of Swift concurrency's cooperative threads, and its caller's backstop
/// timer still answers on time if `getaddrinfo` hangs.
struct PlainHTTPClient: Sendable {
    /// The most bytes the response head may have, its final empty line included.
    let maximumHeadBytes: Int
    /// The clock of the send and receive instants and of the deadlines.
    let clock: any MonotonicClockSource

    /// The longest single wait.
    static let slice = CancellableWait.slice
    /// How long after the exchange's own end the caller's backstop timer fires.
    static let backstopGrace = Duration.milliseconds(250)

    /// Where exchanges run.
    let pool: BlockingPool

    init(maximumHeadBytes: Int, clock: any MonotonicClockSource, pool: BlockingPool = .shared) {
        self.maximumHeadBytes = max(64, maximumHeadBytes)
        self.clock = clock
        self.pool = pool
    }

    /// Performs one request on the blocking pool.
    ///
    /// - Parameters:
    ///   - sendAt: when to write the request (nil: as soon as connected). The connection is opened
    ///     before, so that connecting does not delay the send.
    ///   - timeout: how long the response may take after the send instant (and how long connecting
    ///     may take at most).
    func perform(
        _ request: PlainHTTPRequest, method: HTTPRequestRecord.Method, sendAt: MonotonicInstant?,
        timeout: Duration
    ) async -> HTTPExchangeOutcome {
        let now = clock.now()
        let end = max(now, sendAt ?? now) + timeout
        let client = self
        let reason = "no response from \(request.hostHeader) within \(timeout.formattedSeconds)"
        return await HTTPExchange.run(
            timeout: end - now + Self.backstopGrace, timeoutReason: reason, clock: clock
        ) { finish in
            // Set when the caller gave up; a job still queued then never starts.
            let abandoned = CancellationFlag()
            client.pool.execute(flag: abandoned) {
                finish(
                    client.exchange(
                        request, method: method, sendAt: sendAt, end: end, timeout: timeout,
                        isAbandoned: { abandoned.isCancelled }))
            }
            return { abandoned.cancel() }
        }
    }

    /// Performs one request on the calling thread, which it blocks until the outcome is known, `end`
    /// passes, or `isAbandoned` says to stop (checked at least every ``slice``).
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    func exchange(
        _ request: PlainHTTPRequest, method: HTTPRequestRecord.Method, sendAt: MonotonicInstant?,
        end: MonotonicInstant, timeout: Duration, isAbandoned: @escaping () -> Bool
    ) -> HTTPExchangeOutcome {
        var run = PlainHTTPExchangeRun(
            client: self, request: request, end: end, timeout: timeout, isAbandoned: isAbandoned,
            sent: clock.now())
        do throws(PlainHTTPExchangeRun.Stop) {
            let connection = try run.connect()
            try run.wait(until: sendAt)
            try run.send(request.head(method: method), on: connection)
            let (head, received) = try run.readHead(from: connection)
            return HTTPExchangeOutcome(sent: run.sent, received: received, result: .response(head))
        } catch {
            return HTTPExchangeOutcome(sent: run.sent, received: clock.now(), result: error.result)
        }
    }
}

/// The steps of one plain HTTP exchange, each ending early with a ``Stop`` that carries the result.
private struct PlainHTTPExchangeRun {
    struct Stop: Error {
        var result: HTTPExchangeOutcome.Result
    }

    let client: PlainHTTPClient
    let request: PlainHTTPRequest
    let end: MonotonicInstant
    let timeout: Duration
    let isAbandoned: () -> Bool
    /// The start of the exchange until the request is written, then the instant it was.
    var sent: MonotonicInstant

    private var clock: any MonotonicClockSource { client.clock }

    /// Time left before `end`; stops when the exchange was abandoned or the time is up.
    private func remaining(_ timeoutReason: @autoclosure () -> String) throws(Stop) -> Duration {
        if isAbandoned() { throw Stop(result: .cancelled) }
        let left = end - clock.now()
        guard left > .zero else { throw Stop(result: .failed(.timeout, timeoutReason(), urlErrorCode: nil)) }
        return min(left, PlainHTTPClient.slice)
    }

    private static func failure(_ code: HTTPTimeError.Code, _ reason: String, _ urlErrorCode: Int? = nil)
        -> Stop
    {
        Stop(result: .failed(code, reason, urlErrorCode: urlErrorCode))
    }

    /// Resolves the host and connects to its addresses in the resolver's order until one accepts.
    func connect() throws(Stop) -> TCPConnection {
        let addresses: [SocketAddress]
        do {
            addresses = try Resolver.resolve(request.host, port: request.port, limit: 8, socketKind: .stream)
        } catch {
            throw Self.failure(.transport, error.description, NSURLErrorCannotFindHost)
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
            .transport, "cannot connect to \(request.hostHeader): " + problems.joined(separator: "; "),
            NSURLErrorCannotConnectToHost)
    }

    /// Waits, with the connection open, until `instant` (when given).
    func wait(until instant: MonotonicInstant?) throws(Stop) {
        guard let instant else { return }
        while true {
            let wait = instant - clock.now()
            guard wait > .zero else { return }
            guard CancellableWait.sleep(wait, isCancelled: isAbandoned) else {
                throw Stop(result: .cancelled)
            }
        }
    }

    /// Writes the whole request; sets ``sent`` just before its first byte goes out.
    mutating func send(_ bytes: [UInt8], on connection: TCPConnection) throws(Stop) {
        sent = clock.now()
        var offset = 0
        while offset < bytes.count {
            let slice = try remaining("could not send the request within \(timeout.formattedSeconds)")
            do {
                offset += try connection.send(bytes[offset...], timeout: slice)
            } catch {
                throw Self.failure(
                    .transport, "sending the request to \(connection.remote) failed: \(error)",
                    NSURLErrorNetworkConnectionLost)
            }
        }
    }

    /// Reads until a final (non-1xx) response head is complete and returns it with the instant it
    /// was. Never reads more than the head limit in all.
    func readHead(from connection: TCPConnection) throws(Stop) -> (HTTPResponseHead, MonotonicInstant) {
        let limit = client.maximumHeadBytes
        var buffer: [UInt8] = []
        var consumed = 0
        var searchFrom = 0
        while true {
            let slice = try remaining(
                "no complete response head from \(connection.remote) within \(timeout.formattedSeconds)"
                    + " (\(consumed + buffer.count) bytes received)")
            let room = limit - consumed - buffer.count
            guard room > 0 else {
                throw Self.failure(.headersTooLarge, "the response head is longer than \(limit) bytes")
            }
            let received: TCPConnection.Received
            do {
                received = try connection.receive(maximum: min(room, 4096), timeout: slice)
            } catch {
                throw Self.failure(
                    .transport, "receiving the response from \(connection.remote) failed: \(error)",
                    NSURLErrorNetworkConnectionLost)
            }
            let instant = clock.now()
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
                    .transport, "\(connection.remote) closed the connection \(what)",
                    NSURLErrorNetworkConnectionLost)
            case .bytes(let chunk):
                buffer += chunk
            }
            while let end = HTTPResponseHead.endOfHead(in: buffer, searchingFrom: searchFrom) {
                let head: HTTPResponseHead
                do {
                    head = try HTTPResponseHead(parsing: buffer[..<end])
                } catch {
                    throw Self.failure(.malformedResponse, "the response head is malformed: \(error)")
                }
                if head.statusCode == 101 {
                    throw Self.failure(
                        .malformedResponse, "the server switched protocols, which was not asked for")
                }
                guard (100..<200).contains(head.statusCode) else { return (head, instant) }
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
