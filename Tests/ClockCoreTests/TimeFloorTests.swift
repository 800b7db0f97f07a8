import Foundation
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import NetworkClock

/// The time floor: raised, never lowered, kept in a private file that no boot identity voids, and
/// read back exactly; a damaged or unsafe file is an error, a missing one an empty floor.
@Suite struct TimeFloorTests {
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-floor-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test func theFloorIsRaisedNeverLowered() {
        let early = UnixTime(sinceEpoch: .seconds(1_796_000_000))
        let late = UnixTime(sinceEpoch: .seconds(1_796_040_000))
        var floor = TimeFloor()
        #expect(floor.value == nil)
        floor = floor.raised(byAuthenticated: late, certificateNotBefore: 1_795_900_000)
        #expect(floor.value == late)
        floor = floor.raised(byAuthenticated: early, certificateNotBefore: 1_796_050_000)
        #expect(floor.authenticated == late, "an earlier authenticated time does not lower it")
        #expect(floor.value == UnixTime(sinceEpoch: .seconds(1_796_050_000)), "a newer notBefore raises it")
    }

    /// An app's own response is screened by the floor as a sync's sources are: one whose whole
    /// interval lies before it is refused with its reason, and the clock keeps no anchor from it;
    /// one that reaches the floor is taken.
    @Test func anIngestedResponseBeforeTheFloorIsRefused() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = AnchorStore(path: directory + "/anchor.json")
        let floor = UnixTime(sinceEpoch: .seconds(1_796_040_000))
        try TimeFloor(authenticated: floor).save(to: store.floorPath)
        let clock = NetworkClock(configuration: .init(servers: [], store: store))
        #expect(clock.timeFloor == floor)
        let received = clock.monotonicNow()
        // A 20 ms round trip and a 1 s `Date`: the interval reaches 1.02 s (and 301 ns) past the
        // reading, so a reading 1.1 s before the floor is ruled out, and one 1 s before it is not.
        do {
            try clock.ingest(
                serverTime: floor - .milliseconds(1_100), requestSent: received - .milliseconds(20),
                responseReceived: received, resolution: .seconds(1))
            Issue.record("a response wholly before the floor was taken")
        } catch {
            #expect(error.code == .beforeTimeFloor)
            #expect(error.reason.contains("before the time floor"), "\(error.reason)")
        }
        #expect(clock.now() == nil, "a refused response moved the clock")
        #expect(
            try clock.ingest(
                serverTime: floor - .seconds(1), requestSent: received - .milliseconds(20),
                responseReceived: received,
                resolution: .seconds(1)))
        #expect(clock.now() != nil)
    }

    @Test func itIsKeptAndReadBackExactlyInAPrivateFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/anchor.json.floor"
        #expect(try TimeFloor.load(from: path) == TimeFloor(), "no file: no floor")
        let floor = TimeFloor(
            authenticated: UnixTime(sinceEpoch: .milliseconds(1_796_040_000_250)),
            certificateNotBefore: UnixTime(sinceEpoch: .seconds(1_795_900_000)))
        try floor.save(to: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let loaded = try TimeFloor.load(from: path)
        // Seconds are written as a double: exact to well below a microsecond at this magnitude.
        #expect(
            abs((loaded.authenticated ?? UnixTime(sinceEpoch: .zero)) - floor.authenticated!)
                < .microseconds(1))
        #expect(loaded.certificateNotBefore == floor.certificateNotBefore)
    }

    @Test func aDamagedOrUnsafeFileIsAnError() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/floor"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("{\"version\": 7}".utf8), attributes: [.posixPermissions: 0o600])
        )
        #expect(throws: AnchorStoreError.self) { try TimeFloor.load(from: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        do {
            _ = try TimeFloor.load(from: path)
            Issue.record("a world-readable floor file was read")
        } catch {
            #expect(error.code == .unsafePermissions)
        }
    }
}
