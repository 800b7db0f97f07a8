import Synchronization

/// An open file descriptor and the duty to close it: the one owner of every descriptor that
/// NetClockPlatform opens.
///
/// The type is noncopyable, so the compiler sees to it that each descriptor has exactly one owner
/// and is closed exactly once: when the owner is dropped (`deinit`), or earlier with ``close()``.
/// Owners keep it in an optional so that "closed" is `nil` rather than a magic `-1`:
///
/// ```swift
/// private var descriptor: FileDescriptor?   // closing early is `descriptor = nil`
/// ```
///
/// and types shared between threads keep it in a `Mutex<FileDescriptor?>`.
package struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number, for system calls. Valid while this value lives; never close it.
    package let rawValue: Int32

    /// Takes ownership of `rawValue`, an open descriptor that nothing else will close.
    package init(taking rawValue: Int32) {
        self.rawValue = rawValue
    }

    deinit {
        Syscalls.close(rawValue)
    }

    /// Closes the descriptor now rather than when the value is dropped.
    package consuming func close() {
        let rawValue = self.rawValue
        discard self
        Syscalls.close(rawValue)
    }

    /// Opens a socket (close-on-exec, and non-blocking when asked).
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `socket`.
    package static func socket(family: Int32, type: Int32, nonBlocking: Bool = false) throws(TransportError)
        -> FileDescriptor
    {
        switch Syscalls.socket(family: family, type: type, nonBlocking: nonBlocking) {
        case .success(let fd): return FileDescriptor(taking: fd)
        case .failure(let code): throw .failed("socket", errno: code)
        }
    }
}

extension Mutex where Value == FileDescriptor? {
    /// The descriptor number while the descriptor is open, nil once it is closed.
    ///
    /// The lock is released before the number is used, so the owner must not close the descriptor
    /// while another thread may still use the number (the loopback servers join their threads
    /// first).
    package var rawValue: Int32? {
        withLock { descriptor in descriptor?.rawValue }
    }

    /// Closes the descriptor unless it is already closed.
    package func close() {
        withLock { descriptor in descriptor = nil }
    }
}
