import LoopbackServers
import Roughtime
import Testing

/// The `roughly` servers a suite shares, started once around it by ``RoughlyServersTrait``: two
/// honest ones on this machine's clock (keys 1 and 2) and, where libfaketime is installed (or CI
/// requires it), a validly signed liar an hour ahead (key 3).
///
/// A server answers each query on its own and keeps no state between them, so the suite's tests can
/// share it; three Python start-ups once, at the same time, replace one batch for each test.
struct RoughlyServers: Sendable {
    /// One server as a test sees it.
    struct Endpoint: Sendable {
        var port: UInt16
        /// The server as our client is told of it.
        var server: RoughtimeServer
        /// Its entry in a server list.
        var ecosystemEntry: String
    }

    var honest: [Endpoint]
    /// nil without libfaketime.
    var liar: Endpoint?

    /// The running suite's servers.
    @TaskLocal static var current: RoughlyServers?

    /// The running suite's servers, or a test failure when it lacks the trait.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> RoughlyServers {
        try #require(
            current, "the suite starts no roughly servers (.roughlyServers)", sourceLocation: sourceLocation)
    }

    /// The liar, or a test failure when libfaketime is missing.
    func requireLiar(sourceLocation: SourceLocation = #_sourceLocation) throws -> Endpoint {
        try #require(
            liar, "no lying roughly server: libfaketime is not installed", sourceLocation: sourceLocation)
    }
}

/// Starts a suite's ``RoughlyServers`` before its first test and stops them after its last. Where
/// `roughly` is missing and CI does not require it, it starts nothing (the tests that need the
/// servers skip).
struct RoughlyServersTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    /// Scopes the suite, once, not each test.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { test.isSuite ? self : nil }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard RoughlyPeer.runnable else { return try await function() }
        let withLiar = LibFaketime.path != nil || RoughlyPeer.peersRequired
        var specs = [RoughlyServer.Spec(seed: 1), RoughlyServer.Spec(seed: 2)]
        if withLiar { specs.append(RoughlyServer.Spec(seed: 3, fakeTime: "+1h")) }
        let started = try RoughlyServer.startAll(specs)
        defer { for server in started { server.stop() } }
        let endpoints = started.map(\.endpoint)
        let servers = RoughlyServers(honest: Array(endpoints[0..<2]), liar: withLiar ? endpoints[2] : nil)
        try await RoughlyServers.$current.withValue(servers) { try await function() }
    }
}

extension Trait where Self == RoughlyServersTrait {
    /// The suite shares two honest `roughly` servers and a liar; see ``RoughlyServersTrait``.
    static var roughlyServers: Self { Self() }
}
