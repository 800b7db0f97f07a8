import Foundation
import NetClockPlatform
import NetClockTestSupport
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// The frequency carried across a reboot through the anchor file: boot A's file is refused in
/// boot B (`different_boot`, as ever), yet boot B's clock takes its frequency as a widened prior,
/// keeps it in its own file (`carried_ppm`) for the next process of the boot, and passes it on to
/// boot C; only on the same machine, and never from values that are not an interval.
@Suite("CarriedFrequencyStore")
struct CarriedFrequencyStoreTests {
    static let machineID = "0123456789abcdef0123456789abcdef"

    private static func store(
        _ path: String, _ machine: SimulatedMachine, boot: String, machineID: String? = Self.machineID
    ) -> AnchorStore {
        AnchorStore(
            path: path, bootID: { boot }, monotonic: machine.clock, wall: machine.wallClock,
            machineID: { machineID })
    }

    private static func clock(_ machine: SimulatedMachine) -> AnchoredClock {
        AnchoredClock(
            monotonic: machine.clock, wall: machine.wallClock, kernel: .unavailable, timeBase: machine.clock)
    }

    /// Boot A: two syncs three hours apart of an oscillator 30 ppm fast, saved to `path`. Returns
    /// the half-width boot B carries (the pair's, plus the 10 ppm wander limit and the 10 ppm
    /// reboot allowance) and the true time when boot A ended.
    private static func bootA(_ path: String) throws -> (halfWidth: Double, end: UnixTime) {
        let machine = SimulatedMachine(oscillatorPPM: 30)
        let clock = Self.clock(machine)
        clock.offer(machine.anchor(bound: .milliseconds(5)))
        machine.advance(by: .seconds(3 * 3600))
        clock.offer(machine.anchor(bound: .milliseconds(5)))
        try clock.save(to: Self.store(path, machine, boot: "boot-A"))
        let points = clock.frequencyTracker.points
        let span = (points[1].base.awake - points[0].base.awake).secondsDouble
        return ((points[0].errorBound + points[1].errorBound).secondsDouble / span + 20e-6, machine.trueTime)
    }

    /// Boot B's machine: the same oscillator, an hour after boot A ended, 40 s after power-on.
    private static func machineB(after end: UnixTime) -> SimulatedMachine {
        SimulatedMachine(start: end + .seconds(3600), awakeOrigin: .seconds(40), oscillatorPPM: 30)
    }

    private static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("a reboot refuses the anchor, carries the frequency, and the boot's next process keeps it")
    func roundTrip() async throws {
        let directory = NSTemporaryDirectory() + "netclock-carry-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/anchor.json"
        let (halfWidth, end) = try Self.bootA(path)
        let machine = Self.machineB(after: end)
        let storeB = Self.store(path, machine, boot: "boot-B")
        let facade = NetworkClock(
            configuration: .init(servers: [], store: storeB), monotonic: machine.clock,
            wall: machine.wallClock, kernel: .unavailable, timeBase: machine.clock)
        #expect(facade.restoreResult?.failureCode == .differentBoot)
        #expect(facade.now() == nil)
        let sent = machine.bootReading
        machine.advance(by: .milliseconds(2))
        _ = try facade.ingest(
            serverTime: machine.trueTime - .milliseconds(1) - .microseconds(500), requestSent: sent,
            responseReceived: machine.bootReading)
        let frequency = facade.frequency()
        #expect(frequency.isCarried && frequency.isMeasured && frequency.syncCount == 1)
        #expect(abs(frequency.growthRate - halfWidth) < 1e-12, "\(frequency.growthRatePPM) ppm")
        #expect(abs(frequency.ppm - 30) < 0.01)
        await facade.persister?.waitUntilIdle()
        try Self.afterFirstSync(path, machine, ppm: frequency.ppm, halfWidth: halfWidth)
    }

    /// What boot B's file holds after its first sync, and what the boot's next process and the
    /// next boot make of it (synchronous: restoring reads a file).
    private static func afterFirstSync(
        _ path: String, _ machine: SimulatedMachine, ppm: Double, halfWidth: Double
    )
        throws
    {
        let storeB = Self.store(path, machine, boot: "boot-B")
        // Boot B's file keeps the carried interval, and the machine only as a tag.
        let file = try Self.json(path)
        #expect(file["boot_id"] as? String == "boot-B")
        #expect(file["machine"] as? String == AnchorStore.machineTag(Self.machineID))
        let saved = try #require((file["frequency"] as? [String: Any])?["carried_ppm"] as? [Double])
        #expect(saved.count == 2 && abs(saved[0] - (ppm - halfWidth * 1e6)) < 1e-6)
        #expect(saved.count == 2 && abs(saved[1] - (ppm + halfWidth * 1e6)) < 1e-6)
        #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains(Self.machineID))

        // The next process of boot B restores it with the anchor.
        machine.advance(by: .seconds(600))
        let next = Self.clock(machine)
        #expect(next.restore(from: storeB).failureCode == nil)
        #expect(next.frequency().isCarried && abs(next.boundGrowthRate - halfWidth) < 1e-12)
        #expect(next.frequencyTracker.points.count == 1)

        // Boot C, with no second sync in boot B: carried on, widened by the allowance once more.
        let machineC = Self.machineB(after: machine.trueTime)
        let bootC = Self.clock(machineC)
        #expect(bootC.restore(from: Self.store(path, machineC, boot: "boot-C")).failureCode == .differentBoot)
        let carried = try #require(bootC.frequencyTracker.carried)
        #expect(abs(carried.halfWidth - (halfWidth + 10e-6)) < 1e-12 && bootC.frequencyTracker.points.isEmpty)

        // Another machine's file (a shared home directory), or one whose machine is unknown: the
        // anchor is refused as before and nothing is carried.
        for other in ["fedcba9876543210fedcba9876543210", nil] {
            let stranger = Self.clock(machineC)
            let store = Self.store(path, machineC, boot: "boot-C", machineID: other)
            #expect(stranger.restore(from: store).failureCode == .differentBoot)
            #expect(stranger.frequencyTracker.carried == nil)
        }
    }

    /// A boot-B file whose `carried_ppm` is replaced by `replacement` (JSON text).
    private static func tampered(_ path: String, _ replacement: String) throws {
        var file = try Self.json(path)
        var frequency = try #require(file["frequency"] as? [String: Any])
        frequency["carried_ppm"] = "@CARRIED@"
        file["frequency"] = frequency
        let text = String(decoding: try JSONSerialization.data(withJSONObject: file), as: UTF8.self)
        try writeFile(text.replacingOccurrences(of: "\"@CARRIED@\"", with: replacement), to: path)
    }

    // Not a number, out of order, beyond any prior, the wrong shape: the file is corrupt, in this
    // boot and in the next (its anchor was never going to be used there; its frequency is not
    // either). Within the file's range but nothing within the clock's ±500 ppm prior, or no
    // narrower than it: the file is read, the interval is not carried (the prior holds).
    @Test(
        "a hostile carried interval is refused with the file or not carried, never trusted",
        arguments: [
            ("[NaN, 10]", true), ("[50, 10]", true), ("[-1e9, 1e9]", true), ("[10]", true),
            ("\"wide\"", true),
            ("[10, 20, 30]", true), ("[600, 700]", false), ("[-800, 800]", false),
        ])
    func hostile(replacement: String, corrupt: Bool) throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/anchor.json"
            let (_, end) = try Self.bootA(path)
            let machine = Self.machineB(after: end)
            let carrier = Self.clock(machine)
            carrier.restore(from: Self.store(path, machine, boot: "boot-B"))
            carrier.offer(machine.anchor(bound: .milliseconds(5)))
            try carrier.save(to: Self.store(path, machine, boot: "boot-B"))
            try Self.tampered(path, replacement)
            machine.advance(by: .seconds(60))

            let sameBoot = Self.clock(machine)
            let restored = sameBoot.restore(from: Self.store(path, machine, boot: "boot-B"))
            #expect(restored.failureCode == (corrupt ? .corrupt : nil), "\(replacement)")
            #expect(sameBoot.frequencyTracker.carried == nil)
            if !corrupt { #expect(sameBoot.boundGrowthRate == 500e-6) }

            let nextBoot = Self.clock(machine)
            let refused = nextBoot.restore(from: Self.store(path, machine, boot: "boot-C"))
            #expect(refused.failureCode == (corrupt ? .corrupt : .differentBoot), "\(replacement)")
            #expect(nextBoot.frequencyTracker.carried == nil, "\(replacement)")
        }
    }
}
