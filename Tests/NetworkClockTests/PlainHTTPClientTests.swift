import Foundation
@testable import HTTPTime
import LoopbackServers
import LoopbackTestSupport
import NetClockPlatform
import SNTP
import Testing
import TimeValues
@testable import NetworkClock
import WallClockReference

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// NetworkClock's own HTTP/1.1 client for `http://` URLs against the loopback HTTP server, including
/// the hostile behaviours that used to crash URLSession (`https://` is in HTTPSClientTests).
@Suite(.serialized, .wallClockReference) struct PlainHTTPClientTests {
    static let truth = Duration.milliseconds(1_700)
    /// Allowance for thread wake-ups on a loaded 2-core machine: 1 s (was 0.8 s), still well under
    /// the 10 s request timeout of ``patient`` and the 10 s body of the trickling server.
    static let slack = Duration.seconds(1)
    /// A source with a 10 s request timeout: an error that arrives well before it was not a timeout.
    static let patient = HTTPTimeClient(
        configuration: .init(requestTimeout: .seconds(10), deadline: .seconds(20)))

    private func startServer(_ configuration: HTTPTimeServer.Configuration, ipv6: Bool = false)
        throws -> (HTTPTimeServer, URL)
    {
        let server = try HTTPTimeServer(configuration: configuration, ipv6: ipv6)
        return (server, try #require(URL(string: server.urlString)))
    }

    private static func failure(of source: HTTPTimeClient, _ url: URL) async -> (HTTPTimeError?, Duration) {
        let start = ContinuousClock.now
        do {
            let measurement = try await source.measure(url)
            Issue.record("expected an error, got offset \(measurement.offset)")
            return (nil, ContinuousClock.now - start)
        } catch {
            return (error, ContinuousClock.now - start)
        }
    }

    // MARK: Hostile servers

    /// Every place a server can close the connection inside the response head — before anything,
    /// inside the status line, right after it (which used to stop the process in FoundationNetworking),
    /// inside a field, and just before the final empty line — gives a transport error at once.
    @Test(arguments: [0, 1, 9, 16, 17, 18, 20, 25, 40, 60, 100, 10_000])
    func closingInsideTheHeadIsATransportError(afterBytes: Int) async throws {
        let (server, url) = try startServer(
            .init(misbehaviour: .closeBeforeHeadersEnd(afterBytes: afterBytes)))
        defer { server.stop() }
        let (error, elapsed) = await Self.failure(of: Self.patient, url)
        #expect(error?.code == .transport, "\(String(describing: error))")
        #expect(error?.reason.contains("closed the connection") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("closed the connection") == true, "\(String(describing: error))")
        #expect(error?.requests.count == 1)
        #expect(elapsed < .seconds(1) + Self.slack, "took \(elapsed)")
    }

    @Test(.enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func ipv6LiteralURLWorks() async throws {
        let (server, url) = try startServer(.init(offset: Self.truth), ipv6: true)
        defer { server.stop() }
        #expect(url.absoluteString.hasPrefix("http://[::1]:"))
        let measurement = try await HTTPTimeClient(configuration: .init(maximumRequests: 1)).measure(url)
        #expect(measurement.offsets.contains(Self.truth))
        #expect(server.requests.count == 1)
        #expect(server.requests.allSatisfy { $0.header("Host") == "[::1]:\(server.port)" })
    }

    @Test func requestHeadIsAsSpecified() async throws {
        let (server, base) = try startServer(.init(offset: Self.truth))
        defer { server.stop() }
        let url = try #require(URL(string: base.absoluteString + "time/now?x=1&y=%2F#fragment"))
        _ = try await HTTPTimeClient(configuration: .init(maximumRequests: 1)).measure(url)
        let request = try #require(server.requests.first)
        #expect(request.method == "HEAD")
        #expect(request.path == "/time/now?x=1&y=%2F")
        #expect(
            request.fields.map(\.name) == ["Host", "Cache-Control", "Pragma", "User-Agent", "Connection"])
        #expect(request.header("Host") == "127.0.0.1:\(server.port)")
        #expect(request.header("Cache-Control") == "no-cache")
        #expect(request.header("Pragma") == "no-cache")
        #expect(request.header("User-Agent") == "NetworkClock")
        #expect(request.header("Connection") == "close")
    }

    @Test func hugeHeadIsRefusedWithoutReadingIt() async throws {
        let (server, url) = try startServer(.init(misbehaviour: .oversizedHeaders(bytes: 100 * 1024)))
        defer { server.stop() }
        let (error, elapsed) = await Self.failure(of: Self.patient, url)
        #expect(error?.code == .headersTooLarge, "\(String(describing: error))")
        #expect(error?.reason.contains("16384") == true)
        #expect(elapsed < .seconds(1) + Self.slack)
        // A head just above a smaller configured limit is refused as well; one below it is read.
        let small = HTTPTimeClient(configuration: .init(maximumRequests: 1, maximumResponseHeadBytes: 1_024))
        server.update { $0.misbehaviour = .oversizedHeaders(bytes: 1_100) }
        #expect(await Self.failure(of: small, url).0?.code == .headersTooLarge)
        server.update { $0.misbehaviour = .oversizedHeaders(bytes: 600) }
        _ = try await small.measure(url)
    }

    /// Headers trickling in one byte per 20 ms never complete within the timeout: the measurement
    /// ends with a timeout as soon as it is due, not later. The two measurements run at once (the
    /// server serves each connection on a thread of its own).
    @Test func slowHeadersTimeOutOnTime() async throws {
        let (server, url) = try startServer(.init(misbehaviour: .slowHeaders(pause: .milliseconds(20))))
        defer { server.stop() }
        let source = HTTPTimeClient(configuration: .init(requestTimeout: .milliseconds(400)))
        // The overall deadline wins when it is shorter than the request timeout.
        let short = HTTPTimeClient(
            configuration: .init(requestTimeout: .seconds(3), deadline: .milliseconds(300)))
        async let timedOut = Self.failure(of: source, url)
        async let pastDeadline = Self.failure(of: short, url)
        let (error, elapsed) = await timedOut
        let (deadlineError, deadlineElapsed) = await pastDeadline
        #expect(error?.code == .timeout, "\(String(describing: error))")
        #expect(error?.reason.contains("bytes received") == true, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(400) && elapsed < .milliseconds(400) + Self.slack, "took \(elapsed)")
        #expect(deadlineError?.code == .timeout)
        #expect(
            deadlineElapsed >= .milliseconds(300) && deadlineElapsed < .milliseconds(300) + Self.slack,
            "took \(deadlineElapsed)")
    }

    /// HEAD refused, then GET answered with a 1 MiB body trickling at 1 KiB per 10 ms (10 s in all):
    /// the measurement needs only the head, so it finishes at once. (That a refused HEAD is asked
    /// again with GET for the rest is HTTPMeasurementCoreTests'.)
    @Test func getFallbackReadsNoBody() async throws {
        let (server, url) = try startServer(
            .init(
                offset: Self.truth,
                misbehaviour: .headNotAllowedTricklingBody(bytes: 1 << 20, pause: .milliseconds(10))))
        defer { server.stop() }
        let source = HTTPTimeClient(configuration: .init(maximumRequests: 2))
        let start = ContinuousClock.now
        let measurement = try await source.measure(url)
        let elapsed = ContinuousClock.now - start
        #expect(measurement.requests.map(\.method) == [.head, .get])
        #expect(measurement.requests.map(\.statusCode) == [405, 200])
        #expect(server.requests.map(\.method) == ["HEAD", "GET"])
        #expect(measurement.offsets.contains(Self.truth))
        #expect(elapsed < .seconds(1) + Self.slack, "took \(elapsed): the body was read")
        for request in measurement.requests.dropFirst() {
            // Reading the body would take 10 s; 1 s (was 0.5 s) leaves room for a loaded machine.
            #expect(request.roundTrip < .seconds(1), "round trip \(request.roundTrip)")
        }
    }

    /// A 3xx response is used (HTTPMeasurementCoreTests) and the redirect is not followed: the
    /// server sees no request for the new location.
    @Test func redirectsAreEvidenceAndNotFollowed() async throws {
        let (server, url) = try startServer(
            .init(offset: Self.truth, misbehaviour: .redirect(location: "/elsewhere")))
        defer { server.stop() }
        let source = HTTPTimeClient(configuration: .init(maximumRequests: 1))
        let measurement = try await source.measure(url)
        #expect(measurement.requests.map(\.statusCode) == [301])
        #expect(measurement.offsets.contains(Self.truth))
        #expect(server.requests.map(\.path) == ["/"])
    }

    /// A 103 Early Hints head before the final one is skipped by the head reader.
    @Test func informationalHeadIsSkipped() async throws {
        let (server, url) = try startServer(.init(offset: Self.truth, misbehaviour: .earlyHints))
        defer { server.stop() }
        let measurement = try await HTTPTimeClient(configuration: .init(maximumRequests: 1)).measure(url)
        #expect(measurement.requests.map(\.statusCode) == [200])
        #expect(measurement.offsets.contains(Self.truth))
    }

    @Test(arguments: [
        "HTTP/1.1 2OO OK", "HTTP/2.0 200 OK", "ICY 200 OK", "HTTP/1.1 200 OK\u{1}", "HTTP/1.1 101 Switching",
    ])
    func malformedStatusLineIsAnError(statusLine: String) async throws {
        let (server, url) = try startServer(.init(misbehaviour: .statusLine(statusLine)))
        defer { server.stop() }
        let (error, _) = await Self.failure(of: HTTPTimeClient(), url)
        #expect(error?.code == .malformedResponse, "\(String(describing: error))")
    }

    @Test func refusedUnknownHostAndBadURL() async throws {
        let (server, url) = try startServer(.init())
        server.stop()
        let (refused, elapsed) = await Self.failure(of: Self.patient, url)
        #expect(refused?.code == .transport)
        #expect(refused?.reason.contains("cannot connect to") == true, "\(String(describing: refused))")
        #expect(refused?.reason.contains("refused") == true, "\(String(describing: refused))")
        #expect(elapsed < .seconds(1) + Self.slack)
        let unknown = try #require(URL(string: "http://no-such-host.invalid/"))
        let (resolution, _) = await Self.failure(of: HTTPTimeClient(), unknown)
        #expect(resolution?.code == .transport)
        #expect(resolution?.reason.contains("cannot resolve") == true, "\(String(describing: resolution))")
        for text in ["http://127.0.0.1:0/", "http:/nohost"] {
            let bad = try #require(URL(string: text))
            let (error, _) = await Self.failure(of: HTTPTimeClient(), bad)
            #expect(error?.code == .transport, "\(text)")
            #expect(error?.reason.contains(" has ") == true, "\(String(describing: error))")
        }
    }

    @Test func cancellationEndsTheExchangeAtOnce() async throws {
        let (server, url) = try startServer(.init(misbehaviour: .slowHeaders(pause: .milliseconds(50))))
        defer { server.stop() }
        let start = ContinuousClock.now
        let task = Task { () async -> HTTPTimeError? in
            do throws(HTTPTimeError) {
                _ = try await HTTPTimeClient().measure(url)
                return nil
            } catch {
                return error
            }
        }
        // Real time on purpose: the exchange is in a socket wait of the real client (the server
        // trickles its head every 50 ms), which only real time and a real cancellation reach.
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let error = await task.value
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(ContinuousClock.now - start < .milliseconds(200) + Self.slack)
    }

    /// Exchanges that fail every way, and abandoned ones, leave no descriptor open. (Other suites
    /// may run at the same time, so a small drift is tolerated; a leak would be one per exchange.)
    @Test func descriptorsDoNotLeak() async throws {
        let (early, earlyURL) = try startServer(.init(misbehaviour: .closeBeforeHeadersEnd(afterBytes: 20)))
        defer { early.stop() }
        let (slow, slowURL) = try startServer(.init(misbehaviour: .slowHeaders(pause: .milliseconds(20))))
        defer { slow.stop() }
        let (good, goodURL) = try startServer(.init())
        defer { good.stop() }
        let (gone, goneURL) = try startServer(.init())
        gone.stop()
        // 20 ms: the slow server's first byte comes after 20 ms, its head never in time.
        let quick = HTTPTimeClient(
            configuration: .init(maximumRequests: 1, requestTimeout: .milliseconds(20)))
        let patientOne = HTTPTimeClient(configuration: .init(maximumRequests: 1, requestTimeout: .seconds(1)))
        _ = await Self.failure(of: quick, earlyURL)
        // Real time on purpose: the servers' threads close their side of abandoned connections on
        // their own schedule; 300 ms lets them settle before each count.
        try await Task.sleep(for: .milliseconds(300))
        let before = Self.openDescriptors()
        for _ in 0..<40 {
            _ = await Self.failure(of: quick, earlyURL)
            _ = await Self.failure(of: quick, slowURL)
            _ = await Self.failure(of: quick, goneURL)
            _ = try await patientOne.measure(goodURL)
        }
        try await Task.sleep(for: .milliseconds(300))
        let after = Self.openDescriptors()
        #expect(after - before < 20, "descriptors: \(before) before, \(after) after 160 exchanges")
    }

    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    // MARK: Request construction and resolution

    @Test(arguments: [
        ("http://127.0.0.1/", "127.0.0.1", UInt16(80), "127.0.0.1", "/"),
        ("http://127.0.0.1", "127.0.0.1", 80, "127.0.0.1", "/"),
        ("http://[::1]:8080/a%20b?q=1", "::1", 8080, "[::1]:8080", "/a%20b?q=1"),
        ("http://[fe80::1%25eth0]:80/", "fe80::1%eth0", 80, "[fe80::1%25eth0]:80", "/"),
        ("http://Example.COM:81/p;x?q#frag", "Example.COM", 81, "Example.COM:81", "/p;x?q"),
        ("http://user:secret@example.com/", "example.com", 80, "example.com", "/"),
        ("https://example.com/", "example.com", 443, "example.com", "/"),
        ("HTTPS://[::1]:8443/t", "::1", 8443, "[::1]:8443", "/t"),
    ])
    func requestTargets(text: String, host: String, port: UInt16, hostHeader: String, target: String) throws {
        let request = try HTTPRequestTarget(url: try #require(URL(string: text)))
        #expect(request.isSecure == text.lowercased().hasPrefix("https"))
        #expect(request.host == host)
        #expect(request.port == port)
        #expect(request.hostHeader == hostHeader)
        #expect(request.target == target)
        let head = String(decoding: request.head(method: .get), as: UTF8.self)
        #expect(
            head
                == "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nCache-Control: no-cache\r\n"
                + "Pragma: no-cache\r\nUser-Agent: NetworkClock\r\nConnection: close\r\n\r\n")
        #expect(!head.contains("secret"))
    }

    @Test func resolverTakesBracketedIPv6Literals() throws {
        let addresses = try Resolver.resolve("[::1]", port: 8080, socketKind: .stream)
        #expect(addresses == [SocketAddress(numericHost: "::1", port: 8080)])
        let v4 = try Resolver.resolve("127.0.0.1", port: 80, socketKind: .stream)
        #expect(v4.map(\.description) == ["127.0.0.1:80"])
        #expect(throws: TransportError.self) { try Resolver.resolve("[]", port: 80, socketKind: .stream) }
    }

    @Test func tcpConnectionReportsRefusal() throws {
        let (server, _) = try startServer(.init())
        let address = try #require(SocketAddress(numericHost: "127.0.0.1", port: server.port))
        server.stop()
        do {
            let connection = try TCPConnection(startingConnectionTo: address)
            _ = try connection.waitUntilConnected(timeout: .seconds(1))
            Issue.record("connected to a stopped server")
        } catch {
            #expect(error == .connectionRefused(address: address))
        }
    }
}

/// The response-head parser: pure and total, so a table of hostile inputs and a random sweep.
struct HTTPResponseHeadTests {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nDate: X\r\n\r\n", 200, "OK", "HTTP/1.1", "Date", String?("X")),
        ("HTTP/1.0 204 No Content\r\nAge: 0\r\n\r\n", 204, "No Content", "HTTP/1.0", "age", "0"),
        ("HTTP/1.1 200\r\nDate: X\r\n\r\n", 200, "", "HTTP/1.1", "date", "X"),
        ("HTTP/1.1 200 \r\nDate: X\r\n\r\n", 200, "", "HTTP/1.1", "DATE", "X"),
        (
            "HTTP/1.1 301 Moved  Permanently\tNow\r\nLocation: /x\r\n\r\n", 301, "Moved  Permanently\tNow",
            "HTTP/1.1", "Location", "/x"
        ),
        // Bare LF line ends (RFC 9112 §2.2), and a head without its final empty line.
        ("HTTP/1.1 200 OK\nDate: X\n\n", 200, "OK", "HTTP/1.1", "Date", "X"),
        ("HTTP/1.1 200 OK\r\nDate: X", 200, "OK", "HTTP/1.1", "Date", "X"),
        ("HTTP/1.1 200 OK\r\nDate: X\r\n", 200, "OK", "HTTP/1.1", "Date", "X"),
        // Optional whitespace around values, empty values, odd but valid token names.
        ("HTTP/1.1 200 OK\r\nDate: \t X \t\r\n\r\n", 200, "OK", "HTTP/1.1", "Date", "X"),
        ("HTTP/1.1 200 OK\r\nX-Empty:\r\n\r\n", 200, "OK", "HTTP/1.1", "x-empty", ""),
        ("HTTP/1.1 200 OK\r\nX!#$%&'*+-.^_`|~1:v\r\n\r\n", 200, "OK", "HTTP/1.1", "x!#$%&'*+-.^_`|~1", "v"),
        // Obsolete line folding is joined with one space.
        ("HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\tc \r\n\r\n", 200, "OK", "HTTP/1.1", "X-Long", "a b c"),
        ("HTTP/1.1 200 OK\r\nX-Long:\r\n b\r\n\r\n", 200, "OK", "HTTP/1.1", "X-Long", "b"),
        // Repeated fields: distinct values joined, identical ones kept once.
        ("HTTP/1.1 200 OK\r\nAge: 0\r\nage: 0\r\n\r\n", 200, "OK", "HTTP/1.1", "Age", "0"),
        ("HTTP/1.1 200 OK\r\nDate: A\r\nDATE: B\r\n\r\n", 200, "OK", "HTTP/1.1", "Date", "A, B"),
        // What follows the empty line is body, not head.
        ("HTTP/1.1 200 OK\r\n\r\nDate: X\r\n", 200, "OK", "HTTP/1.1", "Date", nil),
    ])
    func validHeads(
        text: String, status: Int, reason: String, version: String, field: String, value: String?
    ) throws {
        let head = try HTTPResponseHead(parsing: Self.bytes(text))
        #expect(head.statusCode == status)
        #expect(head.reasonPhrase == reason)
        #expect(head.version == version)
        #expect(head.value(forField: field) == value)
    }

    @Test(arguments: [
        ("", HTTPResponseHeadError.Code.empty),
        ("\r\n", .empty),
        ("\r\nHTTP/1.1 200 OK\r\n", .empty),
        ("HTTP/1.1", .invalidStatusLine),
        ("HTTP/1.1\r\n", .invalidStatusLine),
        ("http/1.1 200 OK", .invalidStatusLine),
        ("HTTP/2 200 OK", .invalidStatusLine),
        ("HTTP/1.x 200 OK", .invalidStatusLine),
        ("HTTP/1.1 200OK", .invalidStatusLine),
        ("HTTP/1.1\t200 OK", .invalidStatusLine),
        ("ICY 200 OK", .invalidStatusLine),
        ("HTTP/2.0 200 OK", .unsupportedVersion),
        ("HTTP/0.9 200 OK", .unsupportedVersion),
        ("HTTP/1.1 2000 OK", .invalidStatusCode),
        ("HTTP/1.1 99999999999999999999999999999999 OK", .invalidStatusCode),
        ("HTTP/1.1 20 OK", .invalidStatusCode),
        ("HTTP/1.1 099 Low", .invalidStatusCode),
        ("HTTP/1.1 600 High", .invalidStatusCode),
        ("HTTP/1.1 -20 OK", .invalidStatusCode),
        ("HTTP/1.1  200 OK", .invalidStatusCode),
        ("HTTP/1.1 2OO OK", .invalidStatusCode),
        ("HTTP/1.1 200 O\u{7}K", .invalidReasonPhrase),
        ("HTTP/1.1 200 OK\u{7F}", .invalidReasonPhrase),
        ("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", .invalidFieldLine),
        ("HTTP/1.1 200 OK\r\n Date: X\r\n\r\n", .invalidFieldLine),
        ("HTTP/1.1 200 OK\r\n\tDate: X\r\n\r\n", .invalidFieldLine),
        ("HTTP/1.1 200 OK\r\nDate : X\r\n\r\n", .invalidFieldName),
        ("HTTP/1.1 200 OK\r\n: X\r\n\r\n", .invalidFieldName),
        ("HTTP/1.1 200 OK\r\nDa(te): X\r\n\r\n", .invalidFieldName),
        ("HTTP/1.1 200 OK\r\nDätë: X\r\n\r\n", .invalidFieldName),
        ("HTTP/1.1 200 OK\r\nDate: A\u{0}B\r\n\r\n", .invalidFieldValue),
        ("HTTP/1.1 200 OK\r\nDate: A\u{1B}[31mB\r\n\r\n", .invalidFieldValue),
        ("HTTP/1.1 200 OK\r\nX: a\r\n b\u{1}\r\n\r\n", .invalidFieldValue),
        ("HTTP/1.1 200 OK\r\nDate: A\rB\r\n\r\n", .bareCarriageReturn),
        ("HTTP/1.1 200 OK\rDate: X\r\n\r\n", .bareCarriageReturn),
        ("HTTP/1.1 200 OK\r\r\n\r\n", .bareCarriageReturn),
    ])
    func invalidHeads(text: String, code: HTTPResponseHeadError.Code) {
        do {
            let head = try HTTPResponseHead(parsing: Self.bytes(text))
            Issue.record("parsed \(head) from \(text.debugDescription)")
        } catch {
            #expect(error.code == code, "\(text.debugDescription): \(error)")
            #expect(!error.reason.isEmpty)
        }
    }

    /// Bytes of 0x80 and above (obs-text) are kept, one code point per byte (ISO-8859-1), so a
    /// non-ASCII `Date` cannot sneak through as something else; the date parser then refuses it.
    @Test func nonASCIIValuesAreKeptAsLatin1() throws {
        let raw =
            Self.bytes("HTTP/1.1 200 R") + [0xE9] + Self.bytes("sum\r\nX-Name: caf") + [0xE9, 0xFF]
            + Self.bytes("\r\nDate: Sun, 06 Nov 1994 08:49:37 GM") + [0xD4] + Self.bytes("\r\n\r\n")
        let head = try HTTPResponseHead(parsing: raw)
        #expect(head.reasonPhrase == "R\u{E9}sum")
        #expect(head.value(forField: "x-name") == "caf\u{E9}\u{FF}")
        let date = try #require(head.value(forField: "Date"))
        #expect(throws: HTTPDateError.self) { try HTTPDate(parsing: date, referenceYear: 2025) }
    }

    @Test func endOfHeadFindsTheEmptyLine() {
        let head = Self.bytes("HTTP/1.1 200 OK\r\nDate: X\r\n\r\nbody")
        #expect(HTTPResponseHead.endOfHead(in: head) == head.count - 4)
        #expect(HTTPResponseHead.endOfHead(in: Self.bytes("HTTP/1.1 200 OK\nDate: X\n\nbody")) == 25)
        #expect(HTTPResponseHead.endOfHead(in: Self.bytes("HTTP/1.1 200 OK\r\nDate: X\r\n\r")) == nil)
        #expect(HTTPResponseHead.endOfHead(in: Self.bytes("HTTP/1.1 200 OK\r\nDate: X\r\n")) == nil)
        #expect(HTTPResponseHead.endOfHead(in: Self.bytes("HTTP/1.1 200 OK\r\nDate: X")) == nil)
        #expect(HTTPResponseHead.endOfHead(in: []) == nil)
        // Searching a growing buffer from its previous length minus 2 finds an end split across reads.
        var buffer: [UInt8] = []
        var found: Int?
        for byte in head where found == nil {
            let previous = buffer.count
            buffer.append(byte)
            found = HTTPResponseHead.endOfHead(in: buffer, searchingFrom: previous - 2)
        }
        #expect(found == head.count - 4)
    }

    /// A random sweep: mutations of a valid head and random bytes never trap, and whatever parses
    /// has a status in 100…599 and fields without control characters.
    @Test func randomInputNeverTraps() async {
        var generator = SplitMix64(seed: 2024)
        let valid = Self.bytes(
            "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nX-A: b\r\n c\r\n\r\n")
        var parsed = 0
        for round in 0..<6_000 {
            // Let timing-sensitive tests running alongside have the cooperative threads now and then.
            if round % 200 == 0 { await Task.yield() }
            var input: [UInt8]
            if round % 2 == 0 {
                input = valid
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<input.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: input[index] = UInt8.random(in: 0...255, using: &generator)
                    case 1: input.remove(at: index)
                    default: input.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                    }
                    if input.isEmpty { break }
                }
            } else {
                input = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            _ = HTTPResponseHead.endOfHead(in: input)
            guard let head = try? HTTPResponseHead(parsing: input) else { continue }
            parsed += 1
            #expect((100...599).contains(head.statusCode))
            for field in head.fields {
                #expect(!field.name.isEmpty)
                #expect(
                    field.value.unicodeScalars.allSatisfy {
                        $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F)
                    })
            }
        }
        #expect(parsed > 300)
    }
}
