/// A self-pipe: work finished on another thread ``signal()``s it, and a thread waiting in
/// ``ReadinessWait`` on its sockets and this pipe wakes at once, instead of at the end of a poll
/// slice. Signals coalesce: one wake-up may stand for several.
package final class SignalPipe: Sendable {
    private let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor

    /// Opens the pipe.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `pipe`.
    package init() throws(TransportError) {
        switch Syscalls.nonBlockingPipe() {
        case .success(let (read, write)):
            readEnd = FileDescriptor(taking: read)
            writeEnd = FileDescriptor(taking: write)
        case .failure(let code):
            throw .failed("pipe", errno: code)
        }
    }

    /// Wakes the waiting thread (from any thread).
    package func signal() {
        Syscalls.writeByte(writeEnd.rawValue)
    }

    /// The descriptor a waiter polls.
    var descriptor: Int32 { readEnd.rawValue }

    /// Forgets the signals received so far (the waiter does so when it wakes).
    func drain() {
        Syscalls.drain(readEnd.rawValue)
    }
}
