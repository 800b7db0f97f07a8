// The only file of the HTTP time server that calls the C library.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the sockets, pipes, polling, sleeping and threads the HTTP time server uses.
enum HTTPServerSystem {
    /// What a wait ended with.
    enum WaitResult {
        case readable
        case stopped
        case timedOut
    }

    /// A listening TCP socket on the loopback address of `ipv6 ? ::1 : 127.0.0.1`, ephemeral port.
    /// Returns the descriptor and port, or the errno of the step that failed.
    static func listenOnLoopback(ipv6: Bool) -> Result<(fd: Int32, port: UInt16), HTTPTimeServerError> {
        let family = ipv6 ? AF_INET6 : AF_INET
        #if canImport(Glibc)
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return .failure(HTTPTimeServerError(operation: "socket", errno: errno)) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            withUnsafeBytes(of: &address) { raw in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            withUnsafeBytes(of: &address) { raw in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let error = HTTPTimeServerError(operation: bound == 0 ? "listen" : "bind", errno: errno)
            close(fd)
            return .failure(error)
        }
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = HTTPTimeServerError(operation: "getsockname", errno: errno)
            close(fd)
            return .failure(error)
        }
        let port = withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port sit at the same offset, right after the family.
            UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        }
        return .success((fd, port))
    }

    /// A pipe whose read end becomes readable, for good, once anything is written to it.
    static func makeStopPipe() -> Result<(read: Int32, write: Int32), HTTPTimeServerError> {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return .failure(HTTPTimeServerError(operation: "pipe", errno: errno)) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return .success((fds[0], fds[1]))
    }

    /// Waits until `fd` is readable, `stopFD` is readable, or `milliseconds` pass (−1: forever).
    static func waitReadable(_ fd: Int32, stopFD: Int32, milliseconds: Int32) -> WaitResult {
        // poll ignores entries with a negative descriptor, so fd = -1 waits on the stop pipe alone.
        var entries = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
        ]
        let result = poll(&entries, 2, milliseconds)
        if result < 0 { return errno == EINTR ? .timedOut : .stopped }
        if entries[1].revents != 0 { return .stopped }
        if entries[0].revents != 0 { return .readable }
        return .timedOut
    }

    /// Sleeps for `duration` unless `stopFD` becomes readable first; returns false when stopped.
    static func pause(_ duration: Duration, stopFD: Int32) -> Bool {
        let end = now() + duration
        while true {
            let remaining = end - now()
            guard remaining > .zero else { return true }
            if remaining >= .milliseconds(2) {
                let milliseconds = Int32(min(100, remaining / .milliseconds(1) - 1))
                if waitReadable(-1, stopFD: stopFD, milliseconds: milliseconds) == .stopped { return false }
            } else {
                let (_, attoseconds) = remaining.components
                var request = timespec(tv_sec: 0, tv_nsec: Int(attoseconds / 1_000_000_000))
                _ = nanosleep(&request, nil)
            }
        }
    }

    /// A monotonic reading for measuring pauses.
    static func now() -> Duration {
        var ts = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return .seconds(Int64(ts.tv_sec)) + .nanoseconds(Int64(ts.tv_nsec))
    }

    /// Accepts a connection; nil when none is pending or on error.
    static func accept(_ fd: Int32) -> Int32? {
        #if canImport(Glibc)
            let client = Glibc.accept(fd, nil, nil)
        #else
            let client = Darwin.accept(fd, nil, nil)
        #endif
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return client
    }

    /// Reads what is available (after a wait said readable): the bytes, or nil at end of stream or
    /// on error.
    static func receive(_ fd: Int32, maximum: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Array(buffer[..<count])
    }

    /// Writes all of `bytes`; false when the peer has gone.
    static func sendAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { raw in
                #if canImport(Glibc)
                    send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                #else
                    send(fd, raw.baseAddress, raw.count, 0)
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Writes one byte to the stop pipe.
    static func signal(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    /// Shuts a connected socket down in both directions, waking any thread blocked on it.
    static func shutdownBoth(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    /// Closes a descriptor (never retried: on Linux it is released even on EINTR).
    static func closeDescriptor(_ fd: Int32) { _ = close(fd) }

    /// Starts a joinable thread running `body`; nil if the thread could not be created.
    static func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let argument = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, argument)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(argument).release()
            return nil
        }
        return thread
    }

    /// Waits for a thread started by ``startThread(_:)`` to end and frees it.
    static func join(_ thread: pthread_t) { _ = pthread_join(thread, nil) }

    /// The calling thread.
    static func currentThread() -> pthread_t { pthread_self() }

    /// A readable description of an errno value.
    static func describe(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "errno \(code)"
    }
}

/// The HTTP time server could not start: which system call failed and why.
package struct HTTPTimeServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The system call that failed, e.g. `bind`.
    package let operation: String
    /// Its errno.
    package let errno: Int32

    /// `operation: strerror(errno)`.
    package var description: String { "\(operation): \(HTTPServerSystem.describe(errno))" }
}
