import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues
import WallClockReference

/// `SNTPClient().query(ServerName)`, the SNTP product's front door, blocking and async, against
/// the loopback fake server.
@Suite(.wallClockReference) struct PublicQueryTests {
    private static let options = QueryOptions(samples: 4, interval: .zero, timeout: .milliseconds(500))

    private static func server(
        offset: Duration = .zero, behaviour: FakeNTPServer.Behaviour = .normal
    ) throws -> FakeNTPServer {
        var configuration = FakeNTPServer.Configuration()
        configuration.offset = offset
        configuration.behaviour = behaviour
        return try FakeNTPServer(configuration: configuration)
    }

    /// Blocking, as a program with its own thread calls it.
    private static func blockingQuery(_ name: ServerName, options: QueryOptions = options) -> Result<
        NTPSample, SNTPError
    > {
        Result { () throws(SNTPError) in try SNTPClient().query(name, options: options) }
    }

    @Test func theBlockingQueryReturnsTheServersOffsetWithinItsBound() throws {
        let server = try Self.server(offset: .milliseconds(1_500))
        defer { server.stop() }
        let sample = try Self.blockingQuery(ServerName(host: server.host, port: server.port)).get()
        // The fake server reads the same clock as the client: the measured offset is the
        // configured one to within the sample's own bound (half a loopback round trip and more).
        #expect(abs(sample.offset - .milliseconds(1_500)) <= sample.errorBound, "\(sample)")
        #expect(sample.address == "\(server.host):\(server.port)")
        #expect(sample.description.hasPrefix("offset +1."))
    }

    @Test func theAsyncQueryRunsOnThePoolAndGivesTheSameAnswer() async throws {
        let server = try Self.server(offset: .seconds(-42))
        defer { server.stop() }
        let sample = try await SNTPClient().query(
            ServerName(host: server.host, port: server.port), options: Self.options)
        #expect(abs(sample.offset - .seconds(-42)) <= sample.errorBound, "\(sample)")
    }

    @Test func aKissOfDeathIsATypedErrorWithItsCode() throws {
        let server = try Self.server(behaviour: .kissOfDeath(code: "DENY"))
        defer { server.stop() }
        let result = Self.blockingQuery(ServerName(host: server.host, port: server.port))
        #expect(throws: SNTPError(code: .kissOfDeath, reason: "")) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.kissCode == NTPPacket.KissCode(rawValue: "DENY"))
        }
    }

    /// Each spoofed reply is read and the client waits out its timeout for a genuine one: two
    /// samples of 300 ms (was four of 500 ms, 2 s in all) still give two rejections of one code.
    @Test func spoofedRepliesAreRejectedWithTheirReasons() throws {
        let server = try Self.server(behaviour: .wrongOrigin)
        defer { server.stop() }
        let result = Self.blockingQuery(
            ServerName(host: server.host, port: server.port),
            options: QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(300)))
        guard case .failure(let error) = result else {
            Issue.record("a server that never echoes our nonce gave a sample: \(result)")
            return
        }
        #expect(error.code == .rejected)
        #expect(error.rejections == ["origin_mismatch"])
        #expect(server.requestCount == 2)
    }

    @Test func anUnresolvableNameIsAResolutionError() {
        let result = Self.blockingQuery(ServerName(host: "no-such-host.invalid"))
        guard case .failure(let error) = result else {
            Issue.record("an .invalid name resolved: \(result)")
            return
        }
        #expect(error.code == .resolutionFailed)
    }

    @Test func cancellingTheAsyncQueryEndsItAtOnce() async throws {
        let server = try Self.server(behaviour: .noReply)
        defer { server.stop() }
        let name = ServerName(host: server.host, port: server.port)
        let slow = QueryOptions(samples: 8, interval: .zero, timeout: .seconds(5))
        let task = Task { () async throws(SNTPError) -> NTPSample in
            try await SNTPClient().query(name, options: slow)
        }
        try await Task.sleep(for: .milliseconds(50))
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let latency = ContinuousClock.now - cancelledAt
        #expect(throws: SNTPError(code: .cancelled, reason: "")) { try result.get() }
        // The waiter resumes on cancellation, not when the 40 s burst would end; one second of
        // slack covers scheduling on a loaded two-core machine.
        #expect(latency < .seconds(1), "\(latency)")
    }
}
