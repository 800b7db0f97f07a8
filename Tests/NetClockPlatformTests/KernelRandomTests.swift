#if canImport(Glibc)
    import Glibc
#endif
import LoopbackServers
import NetClockPlatform
import Testing

/// `Syscalls.fillRandom`, the source of NTS Unique Identifiers and nonces: through the vDSO's
/// getrandom where the kernel has one, each state serving one caller at a time, and fresh in a
/// forked child (whose copy of a state the kernel wipes).
@Suite struct KernelRandomTests {
    /// 48 random bytes (a Unique Identifier and a nonce); empty when the kernel gave none.
    static func draw() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 48)
        let filled = bytes.withUnsafeMutableBytes { Syscalls.fillRandom($0) }
        return (try? filled.get()) == nil ? [] : bytes
    }

    /// More threads than the vDSO states (16), each drawing at once: no two draws alike, and no
    /// byte position stuck (each of the 48 takes many values). A state shared by two callers at
    /// once could hand both the same key stream.
    @Test func concurrentDrawsAreAllDistinct() async throws {
        // Threads of their own (the cooperative pool has only as many as cores).
        let draws = try await BlockingCases.run(Array(0..<24), lanes: 24) { _ in
            (0..<500).map { _ in Self.draw() }
        }
        let all = draws.flatMap(\.1)
        #expect(all.count == 12_000 && all.allSatisfy { $0.count == 48 })
        #expect(Set(all).count == all.count, "a repeated 48-byte draw")
        for position in 0..<48 {
            #expect(Set(all.map { $0[position] }).count > 200, "byte \(position) barely varies")
        }
    }

    /// A forked child's first draw is not the parent's next one: the parent's state, already
    /// seeded, is wiped in the child, which reseeds.
    @Test func aForkedChildDrawsFreshBytes() throws {
        #if canImport(Glibc)
            _ = Self.draw()  // seeds the state the next draws use
            var ends: [Int32] = [-1, -1]
            try #require(pipe(&ends) == 0)
            var childBytes = [UInt8](repeating: 0, count: 32)
            let pid = childBytes.withUnsafeMutableBytes { buffer -> pid_t in
                let pid = fork()
                if pid == 0 {
                    // The child: only calls that are safe after a fork, then out.
                    let filled = Syscalls.fillRandom(buffer)
                    let ok = (try? filled.get()) != nil && write(ends[1], buffer.baseAddress, 32) == 32
                    _exit(ok ? 0 : 1)
                }
                return pid
            }
            try #require(pid > 0)
            close(ends[1])
            defer { close(ends[0]) }
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            let received = childBytes.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, 32) }
            #expect(received == 32, "child status \(status)")
            let parent = Array(Self.draw().prefix(32))
            #expect(childBytes != parent)
            #expect(childBytes != [UInt8](repeating: 0, count: 32))
        #endif
    }
}
