import Foundation
import NetClockPlatform
import NetClockTestSupport
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// The anchor file keeps its instants on the host's clocks (the writer's time-namespace offsets
/// taken off) and converts them on reading, so a file written in one namespace means the same in
/// another, either way round; a process whose offsets cannot be read refuses rather than guessing.
@Suite struct AnchorStoreNamespaceTests {
    /// One side: a process in the namespace of `offsets` on `machine`.
    struct Side {
        var clock: AnchoredClock
        var store: AnchorStore
        /// The process's boot-time clock.
        var clocks: NamespacedMachineClock

        /// An anchor at the machine's truth now, stamped with this process's clock.
        func anchor(bound: Duration) -> Anchor {
            Anchor(
                trueTime: clocks.machine.trueTime, monotonic: clocks.now(), errorBound: bound, source: .ntp,
                server: "sim.example:123")
        }
    }

    static func side(_ machine: SimulatedMachine, _ offsets: TimeNamespaceOffsets, path: String) -> Side {
        let clocks = NamespacedMachineClock(machine: machine, offsets: offsets)
        let identity = ScriptedIdentity(ClockIdentity(bootID: "boot-A", offsets: offsets))
        return Side(
            clock: AnchoredClock(
                monotonic: clocks, wall: machine.wallClock, timeBase: clocks, identity: identity.reader),
            store: AnchorStore(
                path: path, bootID: { "boot-A" }, monotonic: clocks, wall: machine.wallClock,
                namespace: identity.offsets), clocks: clocks)
    }

    static let shifts: [TimeNamespaceOffsets] = [
        .init(monotonic: .seconds(5), bootTime: .seconds(5)),
        .init(monotonic: .seconds(-5), bootTime: .seconds(-5)),
        .init(monotonic: .seconds(86_400), bootTime: .seconds(86_400)),
        // Unequal offsets: the suspended time (boot-time − monotonic) is shifted too.
        .init(monotonic: .seconds(86_400), bootTime: .seconds(3)),
    ]

    /// Written in the namespace, read on the host, and the reverse: the reader's estimate is the
    /// writer's, to the nanosecond, with the same bound, and the frequency history comes along.
    @Test(arguments: shifts, [false, true])
    func aFileMeansTheSameInEveryNamespace(shift: TimeNamespaceOffsets, writtenOnTheHost: Bool) throws {
        try inTemporaryDirectory { directory in
            let machine = SimulatedMachine(oscillatorPPM: 12)
            let path = directory + "/anchor.json"
            let (writerOffsets, readerOffsets) = writtenOnTheHost ? (.zero, shift) : (shift, .zero)
            let writer = Self.side(machine, writerOffsets, path: path)
            let reader = Self.side(machine, readerOffsets, path: path)
            for _ in 0..<3 {
                writer.clock.offer(writer.anchor(bound: .microseconds(200)))
                machine.advance(by: .seconds(300))
            }
            try writer.clock.save(to: writer.store)
            let restored = try reader.clock.restore(from: reader.store).get()
            #expect(restored.frequencyHistory.count == 3)
            let written = try #require(writer.clock.now())
            let read = try #require(reader.clock.now())
            #expect(read.contains(machine.trueTime), "\(shift): \(read)")
            #expect(abs(read.time - written.time) <= .nanoseconds(2), "\(shift): \(read.time - written.time)")
            #expect(
                read.errorBound <= written.errorBound + .nanoseconds(4), "\(shift): \(read) vs \(written)")
            #expect(reader.clock.frequency().isMeasured)

            // The file holds the host's instants, and the writer's offsets for people.
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let anchor = try #require(json["anchor"] as? [String: Any])
            let monotonic = try #require(anchor["monotonic"] as? [String: Any])
            let hostAnchor = try #require(writer.clock.anchor).monotonic - writerOffsets.bootTime
            #expect(
                monotonic["seconds"] as? Int64 == hostAnchor.sinceOrigin.components.seconds,
                "\(monotonic) vs \(hostAnchor)")
            let recorded = try #require(json["time_namespace"] as? [String: Any])
            #expect(
                (recorded["boottime"] as? [String: Any])?["seconds"] as? Int64
                    == writerOffsets.bootTime.components.seconds)
        }
    }

    /// Offsets that cannot be read: the file is neither written nor read (its instants could not be
    /// converted), with its own code.
    @Test func unreadableOffsetsRefuseRatherThanGuess() throws {
        try inTemporaryDirectory { directory in
            let machine = SimulatedMachine()
            let path = directory + "/anchor.json"
            let host = Self.side(machine, .zero, path: path)
            host.clock.offer(host.anchor(bound: .milliseconds(1)))
            try host.clock.save(to: host.store)
            let blind = AnchorStore(
                path: path, bootID: { "boot-A" }, monotonic: machine.clock, wall: machine.wallClock,
                namespace: { .failure(TimeNamespaceUnreadable("no /proc")) })
            #expect(blind.load().failureCode == .timeNamespaceUnavailable)
            do throws(AnchorStoreError) {
                try blind.save(machine.anchor(bound: .milliseconds(1)))
                Issue.record("saved without knowing the offsets")
            } catch {
                #expect(error.code == .timeNamespaceUnavailable, "\(error)")
                #expect(error.reason.contains("no /proc"), "\(error.reason)")
            }
        }
    }

    /// The kernel's format, negative offsets included (a normalised timespec: the nanoseconds are
    /// never negative), a clock left out, and what is not the format.
    @Test func theKernelsOffsetsFileParses() {
        let parsed = TimeNamespaceOffsets(
            procText: "monotonic           5         0\nboottime   -6 500000000\n")
        #expect(parsed == TimeNamespaceOffsets(monotonic: .seconds(5), bootTime: .milliseconds(-5500)))
        #expect(TimeNamespaceOffsets(procText: "boottime 86400 0\n")?.monotonic == .zero)
        #expect(TimeNamespaceOffsets(procText: "") == .zero)
        for bad in ["monotonic 5\n", "realtime 5 0\n", "monotonic 5 1000000000\n", "monotonic x 0\n"] {
            #expect(TimeNamespaceOffsets(procText: bad) == nil, "\(bad)")
        }
        // This process's own: readable here (zero outside a namespace).
        #expect((try? Syscalls.timeNamespaceOffsets().get()) != nil)
    }
}
