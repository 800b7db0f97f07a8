import NetClockPlatform
import NetClockTestSupport

/// The CPU time (user plus system, every thread of the process) and the wall time used from its
/// start, read with `getrusage(RUSAGE_SELF)` and the boot-time clock: how tests see a thread that
/// keeps spinning after its caller returned in time.
///
/// The process's CPU time counts every thread, so the reading is meant for suites that run alone
/// (`swift test --no-parallel`, as the README and CI run the tests, or `--filter`).
package struct CPUTimeMeter: Sendable {
    /// The process's CPU time at the start.
    private let cpuStart: Duration
    /// The boot-time clock at the start.
    private let wallStart: Duration

    /// Starts measuring now.
    package init() {
        cpuStart = ServerSyscalls.processCPUTime()
        wallStart = Syscalls.clockTime(.bootTime)
    }

    /// The wall time since the start.
    package var wall: Duration { Syscalls.clockTime(.bootTime) - wallStart }

    /// The CPU time used since the start.
    package var cpu: Duration { ServerSyscalls.processCPUTime() - cpuStart }

    /// Waits `settle` (during which a thread still spinning keeps burning CPU), then returns the
    /// CPU time used since the start.
    package func cpu(afterSettling settle: Duration) async -> Duration {
        try? await Task.sleep(for: settle)
        return cpu
    }
}
