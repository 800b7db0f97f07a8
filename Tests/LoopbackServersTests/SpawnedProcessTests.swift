#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import LoopbackServers
import Testing

/// A daemon a test starts (chronyd, roughly) keeps none of the test process's descriptors: a pipe
/// of a CLI run beside it, left open in the daemon, would hold back the end of file its reader
/// waits for until the daemon exits.
@Suite struct SpawnedProcessTests {
    @Test func aChildKeepsOnlyItsStandardDescriptors() throws {
        #if canImport(Glibc)
            var ends: [Int32] = [-1, -1]
            // Without O_CLOEXEC, as Foundation's `Pipe` makes them.
            try #require(pipe(&ends) == 0)
            defer { close(ends[0]) }
            let log = FileManager.default.temporaryDirectory
                .appendingPathComponent("netclock-spawned-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let child = try SpawnedProcess("/bin/sleep", ["30"], stdout: log, stderr: log)
            defer { child.terminate() }
            // No descriptor of the child is either end of the pipe, at any moment we look.
            var status = stat()
            try #require(fstat(ends[1], &status) == 0)
            let pipeLink = "pipe:[\(status.st_ino)]"
            // posix_spawn returns once the child is in `execve`, but its dynamic loader may still
            // hold a library open on descriptor 3 for a moment: wait for it to settle, bounded.
            var inherited: [String] = []
            var holdingThePipe: Set<String> = []
            _ = Polling.wait(every: .milliseconds(1), timeout: .seconds(5)) {
                inherited =
                    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd")) ?? []
                holdingThePipe.formUnion(
                    inherited.filter { descriptor in
                        let target = try? FileManager.default.destinationOfSymbolicLink(
                            atPath: "/proc/\(child.pid)/fd/\(descriptor)")
                        return target == pipeLink
                    })
                return Set(inherited) == ["0", "1", "2"] || !holdingThePipe.isEmpty
            }
            #expect(holdingThePipe.isEmpty, "the child holds the test's pipe on \(holdingThePipe.sorted())")
            #expect(Set(inherited) == ["0", "1", "2"], "\(inherited.sorted())")
            // The write end closed here is closed everywhere: its reader sees the end of file at
            // once, while the child still runs.
            close(ends[1])
            var byte: UInt8 = 0
            #expect(read(ends[0], &byte, 1) == 0)
        #endif
    }
}
