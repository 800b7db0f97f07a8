import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import Synchronization
import Testing
import TimeValues
import WallClockReference

@testable import NetworkClock

/// An app's use of the library at scale (issue 43), against loopback servers: launches that send
/// nothing while the stored anchor meets the app's need, and a cold start that has trusted time
/// within a round trip of the first replies rather than after the whole burst.
@Suite(.serialized, .wallClockReference)
struct AppDemandTests {
    static func temporaryStore() -> AnchorStore {
        AnchorStore(
            path: NSTemporaryDirectory() + "netclock-demand-\(UInt64.random(in: 0...UInt64.max))/anchor.json")
    }

    /// Ten launches of an app that needs 100 ms, one after another with one store, as the README
    /// shows it (`syncIfNeeded()` at launch): the first syncs (one request: its first reply meets
    /// the need), the other nine send nothing and have trusted time at once.
    @Test func launchesSendNothingWhileTheStoredAnchorMeetsTheNeed() async throws {
        let server = try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: .milliseconds(700)))
        defer { server.stop() }
        let store = Self.temporaryStore()
        defer {
            try? FileManager.default.removeItem(atPath: (store.path as NSString).deletingLastPathComponent)
        }
        var configuration = NetworkClock.Configuration(
            servers: [ServerName(host: server.host, port: server.port)],
            query: QueryOptions(samples: 2, interval: .milliseconds(10), timeout: .seconds(1)), store: store)
        configuration.refresh = .demand(maximumBound: .milliseconds(100))
        var requests: [Int] = []
        for launch in 0..<10 {
            let clock = NetworkClock(configuration: configuration)
            let estimate = try #require(try await clock.syncIfNeeded(), "launch \(launch)")
            let comparison = try #require(clock.systemClockOffset())
            #expect(abs(comparison.offset - .milliseconds(700)) <= comparison.errorBound, "launch \(launch)")
            #expect(estimate.errorBound <= .milliseconds(100))
            await clock.persister?.waitUntilIdle()
            requests.append(server.requestCount)
        }
        // The first launch's sync ends at its first reply (within half the need): one request.
        #expect(requests == Array(repeating: 1, count: 10), "requests after each launch: \(requests)")
    }

    /// A cold start against three servers with the default spacing (4 requests 2 s apart): `now()`
    /// has trusted time while the sync goes on, as soon as two of the three answered, and a
    /// `provisional` event says so. (That the round itself goes on for the whole burst is
    /// `SyncRoundTests`'s, on the manual clock; this one cancels it once the point is made.) A
    /// cancelled sync takes its provisional time back.
    @Test func aColdStartHasTrustedTimeWithinARoundTripOfTheFirstReplies() async throws {
        let servers = try (0..<3).map { _ in
            try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: .milliseconds(-300)))
        }
        defer { servers.forEach { $0.stop() } }
        // No need stated: the round runs its whole burst (with one, it ends at the first replies:
        // the next test).
        let configuration = NetworkClock.Configuration(
            servers: servers.map { ServerName(host: $0.host, port: $0.port) }, query: QueryOptions())
        let clock = NetworkClock(configuration: configuration)
        let events = clock.events()
        let started = ContinuousClock.now
        let sync = Task { try await clock.sync() }
        // Wait (at most 5 s, short of the burst's 6 s) for the first provisional time.
        var provisional: TimeEstimate?
        for await event in events {
            if case .provisional(let estimate) = event {
                provisional = estimate
                break
            }
            if ContinuousClock.now - started > .seconds(5) { break }
        }
        let firstTime = ContinuousClock.now - started
        let estimate = try #require(provisional, "no provisional time before the burst ended")
        let comparison = try #require(clock.systemClockOffset())
        #expect(abs(comparison.offset + .milliseconds(300)) <= comparison.errorBound)
        #expect(estimate.errorBound < .milliseconds(100))
        // The whole burst is 6 s; the first time came with the first replies (the figure is in the
        // note: tens of milliseconds here), not after it.
        #expect(firstTime < .seconds(2), "first trusted time after \(firstTime)")
        #expect(clock.clock.snapshot().anchor == nil, "a provisional time was stored as the anchor")
        sync.cancel()
        await #expect(throws: SyncError.cancelled) { try await sync.value }
        #expect(clock.now() == nil, "the cancelled sync's provisional time stands")
        print("provisional time after \(firstTime)")
    }

    /// The same cold start by an app that needs 100 ms: the sync ends as soon as the replies so far
    /// give time within half of it, one request to each server instead of four, and in a round
    /// trip instead of the burst's 6 s. The anchor is the sync's final one, stored, holding the truth.
    @Test func aSyncWithANeedEndsOnceTheFirstRepliesMeetIt() async throws {
        let servers = try (0..<3).map { _ in
            try FakeNTPServer(configuration: FakeNTPServer.Configuration(offset: .milliseconds(-300)))
        }
        defer { servers.forEach { $0.stop() } }
        var configuration = NetworkClock.Configuration(
            servers: servers.map { ServerName(host: $0.host, port: $0.port) }, query: QueryOptions())
        configuration.refresh = .demand(maximumBound: .milliseconds(100))
        let clock = NetworkClock(configuration: configuration)
        let started = ContinuousClock.now
        let report = try await clock.sync()
        let took = ContinuousClock.now - started
        // A round trip on loopback; 2 s is a third of the burst it no longer waits for.
        #expect(took < .seconds(2), "the sync took \(took)")
        #expect(report.errorBound <= .milliseconds(50), "\(report)")
        let requests = servers.map(\.requestCount)
        #expect(requests.reduce(0, +) <= 3 && requests.allSatisfy { $0 <= 1 }, "requests: \(requests)")
        #expect(clock.clock.snapshot().anchor != nil, "the final decision is the anchor")
        let comparison = try #require(clock.systemClockOffset())
        #expect(abs(comparison.offset + .milliseconds(300)) <= comparison.errorBound)
        print("a sync with a need: \(requests) requests in \(took)")
    }
}
