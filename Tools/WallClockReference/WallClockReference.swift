import NetClockPlatform
import Testing

/// The system wall clock's position against the boot clock: `CLOCK_REALTIME − CLOCK_BOOTTIME`.
///
/// The two advance together, so this only changes when something steps the wall clock (a time
/// daemon, a virtual machine's host catching a restored guest up). The loopback servers' truth is
/// the wall clock plus an offset, so a test during which this moved cannot judge a bound by it.
public enum WallClockReference {
    /// The current position, read with the boot clock on either side of the wall reading (the
    /// tightest of a few tries), so a preemption between the reads does not look like a step.
    public static func position() -> Duration {
        var best: (gap: Int64, position: Int64)?
        for _ in 0..<8 {
            let before = Syscalls.clockNanoseconds(.bootTime)
            let wall = Syscalls.clockNanoseconds(.realTime)
            let after = Syscalls.clockNanoseconds(.bootTime)
            let gap = after - before
            if best.map({ gap < $0.gap }) ?? true { best = (gap, wall - (before + gap / 2)) }
            if gap < 2_000 { break }
        }
        return .nanoseconds(best?.position ?? 0)
    }

    /// How far a reference may move before a test's truth is no longer trusted: well above the
    /// reading's own noise (a few microseconds) and below the tightest loopback bound judged by it.
    public static let tolerance: Duration = .microseconds(20)
}

/// A trait for suites whose truth is the system wall clock: a failure recorded while the wall clock
/// has been stepped since the test began is reported as a known issue naming the step, not as a
/// failure of the code under test. With a steady wall clock, every failure counts.
public struct WallClockReferenceTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applied to every test of a suite that carries it.
    public var isRecursive: Bool { true }

    /// Scopes each test, not the suite around them.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? nil : self
    }

    /// Runs the test, reading the wall clock's position first and again for each failure.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let start = WallClockReference.position()
        try await withKnownIssue(
            "the system wall clock was stepped during this test, so its truth moved",
            isIntermittent: true
        ) {
            try await function()
        } matching: { issue in
            let moved = WallClockReference.position() - start
            guard moved > WallClockReference.tolerance || moved < .zero - WallClockReference.tolerance else {
                return false
            }
            let microseconds =
                Double(moved.components.seconds) * 1e6 + Double(moved.components.attoseconds) / 1e12
            print(
                "note: the wall clock was stepped \(Int(microseconds.rounded())) µs against CLOCK_BOOTTIME"
                    + " during \(test.name); not judged: \(issue)")
            return true
        }
    }
}

extension Trait where Self == WallClockReferenceTrait {
    /// The suite judges bounds against the system wall clock; see ``WallClockReferenceTrait``.
    public static var wallClockReference: Self { Self() }
}
