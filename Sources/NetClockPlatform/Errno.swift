#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An error number the C library reported (`errno`, or a pthread call's result), with readable
/// names for the ones the package tells apart, in the style of swift-system's `Errno`.
///
/// Every wrapper in ``Syscalls`` reports failures through ``Syscalls/valueOrErrno(retryOnInterrupt:_:)``
/// as one of these; no code compares raw numbers. ``description`` is the C library's text.
package struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The number, as the C library defines it on this platform.
    package let rawValue: Int32

    /// The error number `rawValue`.
    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's `errno` now: read it right after the call that failed.
    package static var current: Errno {
        #if canImport(Glibc)
            Errno(rawValue: Glibc.errno)
        #else
            Errno(rawValue: Darwin.errno)
        #endif
    }

    /// `strerror`'s text, such as `Connection refused`.
    package var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: text)
    }

    /// `EPERM`: the operation is not permitted (a firewall refusing a send, for one).
    package static var notPermitted: Errno { Errno(rawValue: EPERM) }
    /// `ENOENT`: no such file or directory.
    package static var noSuchFileOrDirectory: Errno { Errno(rawValue: ENOENT) }
    /// `EINTR`: a signal interrupted the call before it did anything.
    package static var interrupted: Errno { Errno(rawValue: EINTR) }
    /// `EBADF`: not an open descriptor; also what our own types report once they are closed.
    package static var badFileDescriptor: Errno { Errno(rawValue: EBADF) }
    /// `EAGAIN`: a resource is temporarily unavailable (a thread could not be created).
    package static var resourceTemporarilyUnavailable: Errno { Errno(rawValue: EAGAIN) }
    /// `EWOULDBLOCK` (the same number as `EAGAIN` on Linux and Darwin): nothing is ready on a
    /// non-blocking descriptor.
    package static var wouldBlock: Errno { Errno(rawValue: EWOULDBLOCK) }
    /// `EEXIST`: the file or directory exists already.
    package static var fileExists: Errno { Errno(rawValue: EEXIST) }
    /// `ENOTDIR`: a path component is not a directory.
    package static var notDirectory: Errno { Errno(rawValue: ENOTDIR) }
    /// `EFBIG`: the file is too large (what a read over its limit reports).
    package static var fileTooLarge: Errno { Errno(rawValue: EFBIG) }
    /// `EPIPE`: the peer has gone; nothing more can be written.
    package static var brokenPipe: Errno { Errno(rawValue: EPIPE) }
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` forbids one (or too many of them).
    package static var tooManySymbolicLinkLevels: Errno { Errno(rawValue: ELOOP) }
    /// `EINPROGRESS`: a non-blocking connect goes on in the background.
    package static var nowInProgress: Errno { Errno(rawValue: EINPROGRESS) }
    /// `ENOTCONN`: the socket is not connected (yet).
    package static var socketNotConnected: Errno { Errno(rawValue: ENOTCONN) }
    /// `EADDRINUSE`: another socket is bound to the address already.
    package static var addressInUse: Errno { Errno(rawValue: EADDRINUSE) }
    /// `EAFNOSUPPORT`: an address family other than IPv4 and IPv6.
    package static var addressFamilyNotSupported: Errno { Errno(rawValue: EAFNOSUPPORT) }
    /// `ECONNREFUSED`: nothing listens at the address (for UDP: ICMP port unreachable).
    package static var connectionRefused: Errno { Errno(rawValue: ECONNREFUSED) }
    /// `ENETUNREACH`: no route to the destination's network.
    package static var networkUnreachable: Errno { Errno(rawValue: ENETUNREACH) }
}

extension Syscalls {
    /// Calls `body`, a C function that returns a negative value and sets `errno` when it fails:
    /// its value, or the errno. Retries as long as it fails with `EINTR`, unless `retryOnInterrupt`
    /// is false (for calls that must not be repeated, such as `close` and a non-blocking
    /// `connect`). The one way the package reads `errno`.
    @inline(__always)
    package static func valueOrErrno<T: BinaryInteger>(
        retryOnInterrupt: Bool = true, _ body: () -> T
    ) -> Result<T, Errno> {
        while true {
            let result = body()
            if result >= 0 { return .success(result) }
            let code = Errno.current
            if !(retryOnInterrupt && code == .interrupted) { return .failure(code) }
        }
    }

    /// ``valueOrErrno(retryOnInterrupt:_:)`` for calls whose only result is success or failure.
    @inline(__always)
    package static func nothingOrErrno<T: BinaryInteger>(
        retryOnInterrupt: Bool = true, _ body: () -> T
    ) -> Result<Void, Errno> {
        valueOrErrno(retryOnInterrupt: retryOnInterrupt, body).map { _ in () }
    }
}
