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
    init(taking rawValue: Int32) {
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
    static func socket(family: Int32, type: Int32, nonBlocking: Bool = false) throws(TransportError)
        -> FileDescriptor
    {
        let (fd, code) = Syscalls.socket(family: family, type: type, nonBlocking: nonBlocking)
        guard fd >= 0 else { throw .failed("socket", errno: code) }
        return FileDescriptor(taking: fd)
    }

    /// Opens a socket (close-on-exec, and non-blocking when asked) and binds it to `address`,
    /// first allowing the reuse of an address in `TIME_WAIT` when asked (`SO_REUSEADDR`).
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `socket` or
    ///   `bind <address>`.
    static func socket(
        boundTo address: SocketAddress, type: Int32, nonBlocking: Bool = false, reuseAddress: Bool = false
    ) throws(TransportError) -> FileDescriptor {
        let socket = try FileDescriptor.socket(
            family: address.familyConstant, type: type, nonBlocking: nonBlocking)
        if reuseAddress { _ = Syscalls.setReuseAddress(socket.rawValue) }
        let bound = address.withSockAddr { Syscalls.bind(socket.rawValue, $0, $1) }
        guard bound == 0 else { throw .failed("bind \(address)", errno: bound) }
        return socket
    }

    /// The local address of a bound socket, with the port the kernel chose for port 0.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `getsockname`.
    func boundAddress() throws(TransportError) -> SocketAddress {
        guard let address = Syscalls.localAddress(rawValue) else {
            throw .failed("getsockname", errno: Syscalls.errno)
        }
        return address
    }
}

extension Mutex where Value == FileDescriptor? {
    /// The descriptor number while the descriptor is open, nil once it is closed.
    ///
    /// The lock is released before the number is used, so the owner must not close the descriptor
    /// while another thread may still use the number (the loopback servers join their threads
    /// first).
    var rawValue: Int32? {
        withLock { descriptor in descriptor?.rawValue }
    }

    /// Closes the descriptor unless it is already closed.
    func close() {
        withLock { descriptor in descriptor = nil }
    }
}

extension TransportError {
    /// A failed system call, described with `strerror`.
    static func failed(_ operation: String, errno code: Int32) -> TransportError {
        .systemCall(operation: operation, errno: code, reason: Syscalls.describe(code))
    }
}
