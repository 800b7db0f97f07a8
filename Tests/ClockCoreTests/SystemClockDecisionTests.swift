import NetClockPlatform
import Testing
import TimeValues

@testable import NetworkClock

typealias SystemClockDecision = NetworkClock.SystemClockDecision
typealias SystemClockPolicy = NetworkClock.SystemClockPolicy
typealias SystemClockReading = NetworkClock.SystemClockReading
typealias TimeDiscipline = NetworkClock.TimeDiscipline

/// ``SystemClockDecision`` on values, without any system call: every guard, both signs, and the
/// edges of each threshold (a correction exactly at the bound, at twice the bound, at the step
/// threshold and at `--max-step`).
@Suite struct SystemClockDecisionTests {
    /// The reading every case starts from: the system clock at 2026-12-03T00:00:00Z, monotonic 1000 s.
    static let reading = SystemClockReading(
        wall: UnixTime(sinceEpoch: .seconds(1_796_256_000)),
        monotonic: MonotonicInstant(sinceOrigin: .seconds(1000)))

    /// The decision for a trusted time `correction` away from the system clock at the reading,
    /// ± `bound`, taken at the reading's own instant (so nothing ages).
    static func decide(
        _ correction: Duration, bound: Duration = .milliseconds(10), authenticated: Bool = true,
        floor: UnixTime? = nil, others: [TimeDiscipline] = [], policy: SystemClockPolicy = SystemClockPolicy()
    ) -> SystemClockDecision {
        SystemClockDecision(
            trueTime: reading.wall + correction, at: reading.monotonic, errorBound: bound,
            isAuthenticated: authenticated, reading: reading, floor: floor, otherDisciplines: others,
            policy: policy)
    }

    static let signs: [Int64] = [1, -1]

    @Test(arguments: signs)
    func insideTheIntervalNothingIsDoneWhateverTheMethod(_ sign: Int64) {
        for method in [SystemClockPolicy.Method.automatic, .step, .slew] {
            for correction in [Duration.zero, .milliseconds(5 * sign), .milliseconds(10 * sign)] {
                let decision = Self.decide(correction, policy: SystemClockPolicy(method: method))
                #expect(decision.action == .none, "\(correction) \(method): \(decision)")
                #expect(decision.refusal == nil)
                // Nothing corrected, but the kernel is told how far the clock may be from true time.
                #expect(decision.declaredMaximumError == .milliseconds(10) + abs(correction))
                // Unless another discipline owns the clock's status, and then not without --force.
                let others = [TimeDiscipline(name: "chronyd", evidence: "pid 812")]
                let shared = Self.decide(
                    correction, others: others, policy: SystemClockPolicy(method: method))
                #expect(shared.action == .none && shared.declaredMaximumError == nil, "\(shared)")
                let forced = Self.decide(
                    correction, others: others,
                    policy: SystemClockPolicy(method: method, overridesOtherDisciplines: true))
                #expect(forced.declaredMaximumError == .milliseconds(10) + abs(correction), "\(forced)")
            }
        }
        // Just outside the bound, a correction is due (or refused as too uncertain, see below).
        #expect(Self.decide(.nanoseconds(10_000_001 * sign)).action == .refused)
    }

    @Test(arguments: signs)
    func upToTheStepThresholdASlewBeyondItAStep(_ sign: Int64) {
        let atThreshold = Self.decide(.milliseconds(500 * sign))
        #expect(atThreshold.action == .slew, "\(atThreshold)")
        #expect(atThreshold.correction == .milliseconds(500 * sign))
        #expect(atThreshold.declaredMaximumError == .milliseconds(510))
        let beyond = Self.decide(.nanoseconds(500_000_001 * sign))
        #expect(beyond.action == .step, "\(beyond)")
        #expect(beyond.declaredMaximumError == .milliseconds(10))
        let year = Self.decide(.seconds(400 * 86_400 * sign))
        #expect(year.action == .step)
        #expect(year.correction == .seconds(400 * 86_400 * sign))
        // A custom threshold moves the edge.
        let custom = SystemClockPolicy(stepThreshold: .milliseconds(100))
        #expect(Self.decide(.milliseconds(100 * sign), policy: custom).action == .slew)
        #expect(Self.decide(.milliseconds(101 * sign), policy: custom).action == .step)
    }

    @Test(arguments: signs)
    func aForcedMethodIsUsedForAnyDistance(_ sign: Int64) {
        #expect(Self.decide(.seconds(5 * sign), policy: SystemClockPolicy(method: .slew)).action == .slew)
        #expect(
            Self.decide(.milliseconds(30 * sign), policy: SystemClockPolicy(method: .step)).action == .step)
    }

    @Test(arguments: signs)
    func unauthenticatedTimeCorrectsAtMostMaxStep(_ sign: Int64) {
        let atLimit = Self.decide(.seconds(1000 * sign), authenticated: false)
        #expect(atLimit.action == .step, "\(atLimit)")
        let beyond = Self.decide(.nanoseconds(1_000_000_000_001 * sign), authenticated: false)
        #expect(beyond.action == .refused)
        #expect(beyond.refusal?.code == .unauthenticatedCorrectionTooLarge, "\(beyond)")
        #expect(beyond.refusal?.reason.contains("--max-step") == true)
        // Authenticated time may correct any distance; a larger --max-step lets unauthenticated time.
        #expect(Self.decide(.seconds(56 * 365 * 86_400 * sign)).action == .step)
        let wide = SystemClockPolicy(maximumUnauthenticatedCorrection: .seconds(3000))
        #expect(Self.decide(.seconds(2000 * sign), authenticated: false, policy: wide).action == .step)
        // The limit applies to slews as well.
        let slew = SystemClockPolicy(method: .slew, maximumUnauthenticatedCorrection: .milliseconds(100))
        #expect(
            Self.decide(.milliseconds(200 * sign), authenticated: false, policy: slew).refusal?.code
                == .unauthenticatedCorrectionTooLarge)
    }

    @Test(arguments: signs)
    func aBoundOverHalfTheCorrectionIsTooWide(_ sign: Int64) {
        let bound = Duration.seconds(2)
        // At twice the bound the corrected clock (off by ≤ 2 s) cannot be worse than before (≥ 2 s).
        #expect(Self.decide(.seconds(4 * sign), bound: bound).action == .step)
        let tooWide = Self.decide(.nanoseconds(3_999_999_999 * sign), bound: bound)
        #expect(tooWide.refusal?.code == .boundTooWide, "\(tooWide)")
        #expect(Self.decide(.nanoseconds(2_000_000_001 * sign), bound: bound).refusal?.code == .boundTooWide)
    }

    /// The one floor rule (`TrueTimeInterval.notBefore(_:)`): the interval is cut to the floor, and
    /// refused only when nothing of it is left.
    @Test(arguments: signs)
    func onlyThePartFromTheFloorOnIsTrusted(_ sign: Int64) {
        let correction = Duration.seconds(400 * 86_400 * sign)
        let target = Self.reading.wall + correction
        // The floor at the interval's latest end leaves that one instant: a step to it, exact.
        let atLatest = Self.decide(correction, floor: target + .milliseconds(10))
        #expect(atLatest.action == .step, "\(atLatest)")
        #expect(atLatest.correction == correction + .milliseconds(10) && atLatest.errorBound == .zero)
        let before = Self.decide(correction, floor: target + .milliseconds(10) + .nanoseconds(1))
        #expect(before.refusal?.code == .beforeFloor, "\(before)")
        // The floor comes first: it is refused as before the floor even from unauthenticated time.
        #expect(
            Self.decide(correction, authenticated: false, floor: target + .seconds(1)).refusal?.code
                == .beforeFloor)
        // A floor inside the interval cuts it: its upper half is what is left.
        let cut = Self.decide(correction, floor: target)
        #expect(
            cut.correction == correction + .milliseconds(5) && cut.errorBound == .milliseconds(5), "\(cut)")
        // Inside the interval nothing is done when the floor is before it, but a floor between the
        // clock and the interval's end proves the clock wrong.
        #expect(Self.decide(.zero, floor: Self.reading.wall - .seconds(5)).action == .none)
        let proven = Self.decide(.zero, floor: Self.reading.wall + .milliseconds(6))
        #expect(proven.action == .slew && proven.correction == .milliseconds(8), "\(proven)")
        #expect(Self.decide(.zero, floor: Self.reading.wall + .seconds(5)).refusal?.code == .beforeFloor)
    }

    @Test(arguments: signs)
    func anotherDisciplineRefusesUnlessForced(_ sign: Int64) {
        let chronyd = [TimeDiscipline(name: "chronyd", evidence: "pid 812")]
        let refused = Self.decide(.seconds(3 * sign), others: chronyd)
        #expect(refused.refusal?.code == .otherTimeDaemon)
        #expect(refused.refusal?.reason.contains("chronyd (pid 812)") == true)
        #expect(Self.decide(.milliseconds(200 * sign), others: chronyd).refusal?.code == .otherTimeDaemon)
        let forced = SystemClockPolicy(overridesOtherDisciplines: true)
        #expect(Self.decide(.seconds(3 * sign), others: chronyd, policy: forced).action == .step)
        // Nothing to fight over when the clock is inside the interval.
        #expect(Self.decide(.milliseconds(sign), others: chronyd).action == .none)
    }

    @Test func theIntervalIsAgedToTheReading() {
        // A sync 100 s before the reading, ± 1 ms, trusted time = system clock at the sync + 2 s.
        let instant = Self.reading.monotonic - .seconds(100)
        let trueAtSync = Self.reading.wall - .seconds(100) + .seconds(2)
        let decision = SystemClockDecision(
            trueTime: trueAtSync, at: instant, errorBound: .milliseconds(1), isAuthenticated: true,
            reading: Self.reading, floor: nil, otherDisciplines: [], policy: SystemClockPolicy())
        #expect(decision.correction == .seconds(2))
        #expect(decision.trueTime == Self.reading.wall + .seconds(2))
        // 100 s at 15 ppm: 1.5 ms (plus the drift rule's rounding nanosecond).
        #expect(decision.errorBound == .milliseconds(1) + .microseconds(1500) + .nanoseconds(1))
        #expect(decision.action == .step)
    }

    @Test func descriptionsReadAsSentences() {
        #expect(Self.decide(.seconds(3)).description == "step +3.000000s (± 10.000ms)")
        #expect(Self.decide(.zero).description.hasPrefix("none: "))
        #expect(
            Self.decide(.seconds(3), bound: .seconds(2)).description.hasPrefix("refused: bound_too_wide: "))
    }

    @Test func chronydWithXOrQLeavesTheClockAlone() {
        func chronyd(_ arguments: [String]) -> TimeDiscipline? {
            TimeDiscipline.daemon(
                in: RunningProcess(id: 7, name: "chronyd", arguments: ["chronyd"] + arguments))
        }
        #expect(chronyd(["-x", "-d", "-f", "/tmp/c.conf"]) == nil)
        #expect(chronyd(["-dx"]) == nil)
        #expect(chronyd(["-Q", "server x"]) == nil)
        #expect(chronyd(["-f", "x"]) != nil)
        #expect(chronyd(["-fx"]) != nil)
        #expect(chronyd(["-d"])?.description == "chronyd (pid 7)")
        #expect(
            TimeDiscipline.daemon(in: RunningProcess(id: 9, name: "systemd-timesyn", arguments: []))?.name
                == "systemd-timesyncd")
        #expect(
            TimeDiscipline.daemon(in: RunningProcess(id: 9, name: "ntp-daemon", arguments: []))?.name
                == "ntpd-rs")
        #expect(TimeDiscipline.daemon(in: RunningProcess(id: 9, name: "ntpd", arguments: []))?.name == "ntpd")
        #expect(TimeDiscipline.daemon(in: RunningProcess(id: 9, name: "bash", arguments: [])) == nil)
    }

    @Test func theKernelShowsADisciplineButNotWhatSetLeaves() {
        let unsynchronised = KernelClockState(
            clockState: 5, status: [.unsynchronized, .nanosecondResolution], offset: .zero, frequencyPPM: 0,
            maximumError: .seconds(16), estimatedError: .seconds(16))
        #expect(TimeDiscipline.detect(kernel: unsynchronised, processes: []).isEmpty)
        // What `set` leaves: synchronised, errors declared, a single-shot slew pending.
        var afterSet = unsynchronised
        afterSet.clockState = 0
        afterSet.status = [.nanosecondResolution]
        afterSet.singleShotOffset = .milliseconds(200)
        #expect(TimeDiscipline.detect(kernel: afterSet, processes: []).isEmpty)
        var pll = afterSet
        pll.status.insert(.pll)
        #expect(TimeDiscipline.detect(kernel: pll, processes: []).map(\.evidence) == ["STA_PLL set"])
        var slewingTick = afterSet
        slewingTick.tick = .microseconds(10_010)
        #expect(TimeDiscipline.detect(kernel: slewingTick, processes: []).count == 1)
        var frequency = afterSet
        frequency.frequencyPPM = -12.5
        #expect(TimeDiscipline.detect(kernel: frequency, processes: []).count == 1)
        // A frequency left behind on an unsynchronised clock is no daemon at work.
        var leftOver = unsynchronised
        leftOver.frequencyPPM = -12.5
        #expect(TimeDiscipline.detect(kernel: leftOver, processes: []).isEmpty)
    }

    @Test func microsecondsForTheKernelAreRoundedUp() {
        #expect(Syscalls.microsecondsRoundedUp(.nanoseconds(238_600)) == 239)
        #expect(Syscalls.microsecondsRoundedUp(.microseconds(5)) == 5)
        #expect(Syscalls.microsecondsRoundedUp(.zero) == 0)
        #expect(Syscalls.microsecondsRoundedUp(.seconds(-1)) == 0)
    }
}
