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
            // posix_spawn returns once the child is in `execve`; its new arguments appear in
            // /proc a moment later, when the loader has laid them out. Until then `cmdline` is empty.
            var running: RunningProcess?
            let listed = Polling.wait(every: .milliseconds(1), timeout: .seconds(3)) {
                running = Syscalls.runningProcesses().first { $0.id == child.pid }
                return running?.arguments.isEmpty == false
            }
            #expect(listed, "\(String(describing: running))")
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

    /// A process whose `cmdline` is empty (a kernel thread) is listed with no arguments, not one
    /// empty argument.
    @Test(
        .enabled(
            if: Self.kernelThread != nil,
            "no kernel thread is visible here (pid 2 is not kthreadd in this pid namespace)"))
    func aKernelThreadHasNoArguments() throws {
        let id = try #require(Self.kernelThread)
        let thread = try #require(Syscalls.runningProcesses().first { $0.id == id })
        #expect(thread.name == "kthreadd")
        #expect(thread.arguments == [])
    }

    /// kthreadd, pid 2 where this test sees the first pid namespace's processes.
    static var kernelThread: Int32? {
        let comm = try? String(contentsOfFile: "/proc/2/comm", encoding: .utf8)
        return comm == "kthreadd\n" ? 2 : nil
    }
}
