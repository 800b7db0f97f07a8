import Foundation
import LoopbackServers
import NetClockPlatform
import NetClockTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace of the test's own (`ip netns add`), for network changes that touch nothing of
/// the host: its only interface is its own `lo`. Deleted by its name, which only this test uses, in
/// ``delete()``. Needs root (CAP_SYS_ADMIN) and iproute2's `ip`.
final class NetworkNamespace: Sendable {
    /// The namespace's name, unique to this process and test.
    let name: String
    private let ip: String

    /// Why namespaces cannot be made here, or nil when they can be: found by making one and deleting
    /// it (a root without CAP_SYS_ADMIN, in a container, cannot).
    static let unavailableReason: String? = {
        if TestExecutables.path(of: "ip") == nil { return "iproute2's ip is not installed" }
        if geteuid() != 0 { return "creating a network namespace needs root" }
        if setns == nil { return "the C library has no setns" }
        do {
            try NetworkNamespace().delete()
            return nil
        } catch {
            return "cannot create a network namespace (\(error))"
        }
    }()

    /// Creates the namespace.
    init() throws {
        guard let ip = TestExecutables.path(of: "ip") else { throw Failure("ip is not installed") }
        self.ip = ip
        name = "netclock-lifecycle-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try run(["netns", "add", name])
    }

    /// Runs `ip -n NAME arguments` (e.g. `addr add 10.9.8.7/32 dev lo`) in the namespace.
    func ip(_ arguments: [String]) throws {
        try run(["-n", name] + arguments)
    }

    /// Deletes the namespace (by its name; nothing else).
    func delete() {
        try? run(["netns", "delete", name])
    }

    /// Runs `body` on a new thread that has entered the namespace (`setns`): sockets it opens
    /// belong to the namespace. The calling thread is never moved.
    func onThreadInside(_ body: @escaping @Sendable () -> Void) throws {
        guard let setns = Self.setns else { throw Failure("no setns") }
        let path = "/run/netns/\(name)"
        let entered = Mutex<String?>(nil)
        let thread = try JoinableThread {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                entered.withLock { $0 = "open \(path): errno \(errno)" }
                return
            }
            defer { close(fd) }
            guard setns(fd, Self.newNetworkNamespace) == 0 else {
                entered.withLock { $0 = "setns: errno \(errno)" }
                return
            }
            body()
        }
        thread.join()
        if let failure = entered.withLock({ $0 }) { throw Failure(failure) }
    }

    /// `CLONE_NEWNET`, which Swift's Glibc module does not import.
    private static let newNetworkNamespace: Int32 = 0x4000_0000

    /// The C library's `setns`, which Swift's Glibc module does not declare (it needs
    /// `_GNU_SOURCE`): found with `dlsym`.
    private static let setns: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(
                "ip \(arguments.joined(separator: " ")): exit \(process.terminationStatus): \(text)")
        }
    }

    /// A namespace step that failed, with what it said.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
