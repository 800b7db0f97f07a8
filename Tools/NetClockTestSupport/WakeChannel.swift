import NetClockPlatform
import Synchronization

/// A pair of connected local datagram sockets that lets one thread wake another out of a wait on
/// a socket: ``wake()`` makes the read end readable until ``drain()`` empties it (forever, if
/// nobody drains it, which suits a "stop" signal).
///
/// It owns both descriptors (``FileDescriptor``s): ``close()`` or releasing the channel closes
/// them exactly once. It must not be closed while another thread still waits on it.
package final class WakeChannel: Sendable {
    private let readEnd: Mutex<FileDescriptor?>
    private let writeEnd: Mutex<FileDescriptor?>

    /// Opens the socket pair.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `socketpair`.
    package init() throws(TransportError) {
        let (read, write): (Int32, Int32)
        switch ServerSyscalls.datagramSocketPair() {
        case .success(let pair): (read, write) = pair
        case .failure(let code): throw .failed("socketpair", errno: code)
        }
        self.readEnd = Mutex(FileDescriptor(taking: read))
        self.writeEnd = Mutex(FileDescriptor(taking: write))
    }

    /// Makes the read end readable, waking a thread that waits on the channel.
    package func wake() {
        guard let fd = writeEnd.rawValue else { return }
        let byte: [UInt8] = [1]
        _ = byte.withUnsafeBytes { Syscalls.send(fd, $0) }
    }

    /// Empties the read end, so that the next wait blocks again.
    package func drain() {
        guard let fd = readEnd.rawValue else { return }
        var buffer = [UInt8](repeating: 0, count: 16)
        while case .success(let count) = buffer.withUnsafeMutableBytes({ Syscalls.receive(fd, $0) }),
            count > 0
        {}
    }

    /// Closes both descriptors; later calls do nothing.
    package func close() {
        readEnd.close()
        writeEnd.close()
    }

    /// Waits until `fd` (ignored when negative) is readable, the channel is woken, or
    /// `milliseconds` pass (−1: without limit).
    func wait(orReadable fd: Int32, milliseconds: Int32) -> WaitOutcome {
        ServerSyscalls.pollReadable(fd, orWake: readEnd.rawValue ?? -1, milliseconds: milliseconds)
    }

    /// Sleeps for `duration` unless the channel is woken first; returns false when woken.
    ///
    /// Waits in slices of at most 100 ms, and sleeps out the last 2 ms without polling (`poll`
    /// counts whole milliseconds), so the pause ends close to on time.
    package func sleep(for duration: Duration) -> Bool {
        let end = Syscalls.clockTime(.monotonic) + duration
        while true {
            let remaining = end - Syscalls.clockTime(.monotonic)
            guard remaining > .zero else { return true }
            if remaining >= .milliseconds(2) {
                let milliseconds = Int32(min(100, remaining / .milliseconds(1) - 1))
                if wait(orReadable: -1, milliseconds: milliseconds) == .woken { return false }
            } else {
                Syscalls.sleep(remaining)
            }
        }
    }
}
