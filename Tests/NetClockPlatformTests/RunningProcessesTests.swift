#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import LoopbackServers
import NetClockPlatform
import Testing

/// `Syscalls.runningProcesses()` against a real child: listed with its name and arguments while it
/// runs; once it has exited, not yet reaped (a zombie, still in /proc), it runs no code and is not
/// listed, so `netclock set` never takes a chronyd that is exiting for a daemon at work.
@Suite struct RunningProcessesTests {
    /// The state letter of `/proc/PID/stat` (`R`, `S`, `Z`, …), after the parenthesised name.
    static func state(of pid: pid_t) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[close...].dropFirst().first { $0 != " " }
    }

    @Test func aRunningChildIsListedAndAnExitedOneIsNot() throws {
        #if canImport(Glibc)
            let log = FileManager.default.temporaryDirectory
                .appendingPathComponent("netclock-processes-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let child = try SpawnedProcess("/bin/sleep", ["30"], stdout: log, stderr: log)
            defer { child.terminate() }
            let running = Syscalls.runningProcesses().first { $0.id == child.pid }
            #expect(running?.name == "sleep")
            #expect(running?.arguments == ["/bin/sleep", "30"])
            kill(child.pid, SIGKILL)
            // Nothing reaps it until `terminate()`: it stays a zombie, still in /proc.
            let zombie = Polling.wait(every: .milliseconds(5), timeout: .seconds(3)) {
                Self.state(of: child.pid) == "Z"
            }
            #expect(zombie, "state \(String(describing: Self.state(of: child.pid)))")
            #expect(!Syscalls.runningProcesses().contains { $0.id == child.pid })
        #endif
    }
}
