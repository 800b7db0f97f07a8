import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import NetClockTestSupport
import Testing
import TimeValues
import TimeDoubles

@testable import NetworkClock
import WallClockReference

/// The state files through ``AnchorStore`` and the ``NetworkClock`` facade: hostile anchor paths
/// are refused with their codes and never replaced; NTS cookies are handed over between live
/// clocks that share a store without ever being presented twice.
@Suite(.serialized, .wallClockReference)
struct StateFileFacadeTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("netclock-state-\(UUID().uuidString)")
            .path
    }

    @Test(
        "a hostile anchor path: load and save refuse it with its code, the facade reports it, nothing changes",
        arguments: HostileStateFile.withoutRoot)
    func hostileAnchorPaths(kind: HostileStateFile) throws {
        try inTemporaryDirectory { directory in
            let timeline = SimulatedTimeline()
            let path = directory + "/anchor.json"
            let store = AnchorStore(
                path: path, bootID: { "boot-A" }, monotonic: timeline.monotonicClock, wall: timeline.wallClock
            )
            try store.save(timeline.anchor(bound: .milliseconds(3)))
            let valid = try String(contentsOfFile: path, encoding: .utf8)
            try FileManager.default.removeItem(atPath: path)
            try kind.make(at: path, contents: valid)

            let error = try #require(store.load().failure)
            #expect(error.code.rawValue == kind.code && error.isUnsafeFile && error.path == path)
            #expect(error.reason.hasPrefix(path + " " + kind.reasonWords), "\(error.reason)")
            #expect(store.unsafeFileError() == error)
            let facade = NetworkClock(
                configuration: .init(servers: [], store: store), monotonic: timeline.monotonicClock,
                wall: timeline.wallClock, kernel: .unavailable)
            #expect(facade.restoreResult?.failure == error)
            #expect(facade.now() == nil)

            let saved = Result { () throws(AnchorStoreError) in
                try store.save(timeline.anchor(bound: .milliseconds(2)))
            }
            if kind.isReplaceable {
                #expect(saved.failure == nil)
                #expect(store.load().failure == nil)
                #expect(try permissions(of: path) == 0o600)
            } else {
                #expect(saved.failure?.code.rawValue == kind.code)
                #expect(kind.isIntact(at: path, contents: valid))
            }
        }
    }

    static let fast = QueryOptions(samples: 2, interval: .zero, timeout: .milliseconds(300))

    static func clock(_ nts: FakeNTSServer, _ certificates: TestCertificates, store: AnchorStore)
        -> NetworkClock
    {
        NetworkClock(
            configuration: .init(
                servers: [.nts(nts.host, port: nts.kePort)], query: fast, store: store,
                trustRoots: .certificateFile(certificates.caFile)))
    }

    @Test(
        "two live clocks sharing a store hand the cookies back and forth and never present one twice",
        .enabled(if: TestCertificates.runnable, "the openssl command is not installed"))
    func liveClocksNeverShareACookie() async throws {
        let certificates = try TestCertificates.require()
        let nts = try FakeNTSServer(configuration: .init(certificates: certificates))
        defer { nts.stop() }
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = AnchorStore(path: directory + "/anchor.json")
        let first = Self.clock(nts, certificates, store: store)
        let second = Self.clock(nts, certificates, store: store)
        var keyExchanges: [Int] = []
        for clock in [first, second, first, second, first] {
            let report = try await clock.sync()
            #expect(report.isAuthenticated)
            keyExchanges.append(report.servers.first?.ntp?.nts?.keyExchanges ?? -1)
            // After each sync the cookies are in the file, and only there.
            #expect(FileManager.default.fileExists(atPath: store.ntsCookiePath))
        }
        // One key exchange in all: every later sync, of either clock, took the file.
        #expect(keyExchanges == [1, 0, 0, 0, 0])
        #expect(nts.waitUntil(timeout: .seconds(2)) { $0.cookiesPresented == 10 })
        #expect(nts.statistics.repeatedCookies == 0)
        #expect(nts.statistics.keHandshakes == 1)
    }

    @Test(
        "a hostile cookie file costs the facade a key exchange and an event, and is left as it is",
        .enabled(if: TestCertificates.runnable, "the openssl command is not installed"))
    func hostileCookieFile() async throws {
        let certificates = try TestCertificates.require()
        let nts = try FakeNTSServer(configuration: .init(certificates: certificates))
        defer { nts.stop() }
        let directory = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = AnchorStore(path: directory + "/anchor.json")
        try HostileStateFile.fifo.make(at: store.ntsCookiePath, contents: "")
        var clock: NetworkClock? = Self.clock(nts, certificates, store: store)
        let events = try #require(clock?.events())
        let report = try await #require(clock).sync()
        #expect(report.isAuthenticated && report.servers.first?.ntp?.nts?.keyExchanges == 1)
        clock = nil
        var failures: [AnchorStoreError] = []
        for await event in events {
            switch event {
            case .restoreFailed(let error), .storeFailed(let error): failures.append(error)
            default: break
            }
        }
        // Refused when taken before the sync, and when the cookies were to be kept after it.
        #expect(failures.map(\.code) == [.notRegularFile, .notRegularFile], "\(failures)")
        #expect(failures.allSatisfy { $0.path == store.ntsCookiePath && $0.reason.contains("is a FIFO") })
        #expect(HostileStateFile.fifo.isIntact(at: store.ntsCookiePath, contents: ""))
    }
}
