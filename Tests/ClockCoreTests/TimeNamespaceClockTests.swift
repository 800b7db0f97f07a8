import NetClockPlatform
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock

/// A running clock whose process is frozen and restored (checkpoint/restore of a container): the
/// restore chooses new time-namespace offsets so that the process's clocks read on where they
/// stopped, while true time moved on. The clock notices the new offsets on its slow path (the
/// suspend epoch moved) and carries its anchor across the time its clocks did not count; a new
/// boot id (restored on another machine) drops the anchor and says so. It never reports a bound
/// the restore breaks.
@Suite struct TimeNamespaceClockTests {
    static let boot = "boot-A"

    /// A clock on `machine` reading `identity`, anchored at the truth within 1 ms, then 10 s later.
    static func anchoredClock(_ machine: SimulatedMachine, identity: ClockIdentityReader) -> AnchoredClock {
        let clock = anchoredNow(machine, identity: identity)
        machine.advance(by: .seconds(10))
        return clock
    }

    /// A clock on `machine` reading `identity`, anchored at the truth within 1 ms now.
    static func anchoredNow(_ machine: SimulatedMachine, identity: ClockIdentityReader) -> AnchoredClock {
        let clock = AnchoredClock(
            monotonic: machine.clock, wall: machine.wallClock, timeBase: machine.clock, identity: identity)
        clock.offer(machine.anchor(bound: .milliseconds(1)))
        return clock
    }

    /// The offsets after a restore that hid `awake` of awake time and `suspended` of host suspend.
    static func restored(hiding awake: Duration, suspended: Duration = .zero) -> ClockIdentity {
        ClockIdentity(
            bootID: boot,
            offsets: TimeNamespaceOffsets(monotonic: .zero - awake, bootTime: .zero - awake - suspended))
    }

    /// Frozen for an hour: the clock's estimate holds the truth, its bound grew over the hour at
    /// the rate it grows awake, and the same clock blind to the offsets is an hour behind.
    @Test(arguments: [Duration.zero, .seconds(600)])
    func aRestoreCarriesTheAnchorAcrossTheTimeItsClocksDidNotCount(suspendedMeanwhile: Duration) throws {
        let machine = SimulatedMachine()
        let identity = ScriptedIdentity(ClockIdentity(bootID: Self.boot, offsets: .zero))
        let clock = Self.anchoredNow(machine, identity: identity.reader)
        let blind = Self.anchoredNow(machine, identity: .unchanging)
        machine.advance(by: .seconds(10))
        let before = try #require(clock.now())
        let frozen = Duration.seconds(3600)
        machine.freeze(for: frozen + suspendedMeanwhile)
        identity.set(Self.restored(hiding: frozen, suspended: suspendedMeanwhile))

        let after = try #require(clock.now())
        #expect(after.contains(machine.trueTime), "\(after) vs \(machine.trueTime)")
        #expect(abs(after.time - machine.trueTime) <= .microseconds(1), "\(after.time - machine.trueTime)")
        // The bound grew over the hidden time as it grows over time a clock sees: the same clock
        // on a machine that lived the hour awake (and the suspend) instead.
        let witness = SimulatedMachine()
        let seeing = Self.anchoredClock(witness, identity: .unchanging)
        witness.advance(by: frozen)
        if suspendedMeanwhile > .zero { witness.suspend(for: suspendedMeanwhile) }
        let seen = try #require(seeing.now())
        #expect(abs(after.errorBound - seen.errorBound) <= .nanoseconds(2), "\(after) vs \(seen)")
        #expect(after.errorBound - before.errorBound >= frozen * 500e-6)
        #expect(after.age >= before.age + frozen + suspendedMeanwhile)

        let stale = try #require(blind.now())
        #expect(!stale.contains(machine.trueTime), "a clock blind to the offsets would be an hour behind")

        // The slow path read the identity; the hot path never does.
        let reads = identity.reads
        for _ in 0..<1000 { _ = clock.now() }
        #expect(identity.reads == reads)
    }

    /// The first reading after the restore may be the comparison with the system clock (or any
    /// estimate at an instant), or a new anchor: each carries the anchor across first.
    @Test func everySlowPathNoticesTheRestore() throws {
        for first in ["estimate", "offer"] {
            let machine = SimulatedMachine()
            let identity = ScriptedIdentity(ClockIdentity(bootID: Self.boot, offsets: .zero))
            let clock = Self.anchoredClock(machine, identity: identity.reader)
            machine.freeze(for: .seconds(600))
            identity.set(Self.restored(hiding: .seconds(600)))
            if first == "estimate" {
                let estimate = try #require(clock.estimate(at: machine.bootReading))
                #expect(estimate.contains(machine.trueTime), "\(estimate)")
            } else {
                // A fresh anchor agrees with the carried one: no discontinuity, no frequency reset.
                let update = clock.offer(machine.anchor(bound: .milliseconds(5)))
                #expect(update == .kept || update == .intersected || update == .adopted, "\(update)")
                #expect(clock.frequency().resetCount == 0)
            }
            let now = try #require(clock.now())
            #expect(now.contains(machine.trueTime), "\(first): \(now)")
        }
    }

    /// Restored on another machine: a new boot id. The anchor and the frequency history are
    /// dropped, `now()` is nil until the next sync, and the facade says why.
    @Test func anotherBootDropsTheAnchorAndSaysSo() async throws {
        let machine = SimulatedMachine()
        let identity = ScriptedIdentity(ClockIdentity(bootID: Self.boot, offsets: .zero))
        var facade: NetworkClock? = NetworkClock(
            configuration: NetworkClock.Configuration(servers: []), monotonic: machine.clock,
            wall: machine.wallClock, timeBase: machine.clock, identity: identity.reader)
        let events = try #require(facade?.events())
        let clock = try #require(facade?.clock)
        clock.offer(machine.anchor(bound: .milliseconds(1)))
        machine.advance(by: .seconds(10))
        #expect(clock.now() != nil)
        machine.freeze(for: .seconds(60))
        identity.set(
            ClockIdentity(
                bootID: "boot-B",
                offsets: TimeNamespaceOffsets(monotonic: .seconds(-7), bootTime: .seconds(-7))))
        #expect(clock.now() == nil)
        #expect(clock.anchor == nil && clock.frequencyTracker.points.isEmpty)
        #expect(facade?.systemClockOffset() == nil)
        // A sync on the new machine anchors it again.
        clock.offer(machine.anchor(bound: .milliseconds(2)))
        #expect(try #require(clock.now()).contains(machine.trueTime))
        facade = nil
        var all: [ClockEvent] = []
        for await event in events { all.append(event) }
        guard all.count == 1, case .anchorDropped(let reason) = all[0] else {
            Issue.record("expected one anchorDropped event, got \(all)")
            return
        }
        #expect(reason.contains("boot-B") && reason.contains("dropped"), "\(reason)")
        #expect(all[0].description.hasPrefix("anchor dropped: "))
    }

    /// Offsets that cannot be read at the moment are taken as unchanged: nothing moves.
    @Test func unreadableOffsetsChangeNothing() throws {
        let machine = SimulatedMachine()
        let identity = ScriptedIdentity(ClockIdentity(bootID: Self.boot, offsets: .zero))
        let clock = Self.anchoredClock(machine, identity: identity.reader)
        let before = try #require(clock.now())
        machine.stepWallClock(by: .seconds(30))
        identity.set(ClockIdentity(bootID: nil, offsets: nil))
        let after = try #require(clock.now())
        #expect(after.time - before.time < .milliseconds(1) && after.contains(machine.trueTime))
    }
}
