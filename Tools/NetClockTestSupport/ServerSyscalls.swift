// The C library calls that only servers make — bind, listen, accept, recvfrom/sendto on an
// unconnected socket, socket pairs, shutdown, joinable threads — and the process's CPU time that
// tests read. They sit here, with the loopback test servers, so that an app linking the
// NetworkClock library links no listener; the client's calls stay in NetClockPlatform's
// Syscalls.swift, under the same platform chain.

import NetClockPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin, typed wrappers over the server side of the C library, each retrying on `EINTR` where
/// that is meaningful.
package enum ServerSyscalls {
    /// Lets a listening socket bind an address that is still in `TIME_WAIT` (`SO_REUSEADDR`).
    /// Returns 0 or the errno.
    static func setReuseAddress(_ fd: Int32) -> Int32 {
        var yes: Int32 = 1
        let result = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        return result < 0 ? Syscalls.errno : 0
    }

    /// Binds a socket to `address`. Returns 0 or the errno.
    static func bind(_ fd: Int32, to address: SocketAddress) -> Int32 {
        let result = address.withSockAddr { address, length in
            #if canImport(Glibc)
                Glibc.bind(fd, address, length)
            #else
                Darwin.bind(fd, address, length)
            #endif
        }
        return result < 0 ? Syscalls.errno : 0
    }

    /// The local address of a bound socket (`getsockname`), nil on failure.
    static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 ? SocketAddress(storage: storage, length: length) : nil
    }

    /// Marks a bound stream socket as accepting connections. Returns 0 or the errno.
    static func listen(_ fd: Int32, backlog: Int32) -> Int32 {
        #if canImport(Glibc)
            let result = Glibc.listen(fd, backlog)
        #else
            let result = Darwin.listen(fd, backlog)
        #endif
        return result < 0 ? Syscalls.errno : 0
    }

    /// Accepts one pending connection as a close-on-exec descriptor: the descriptor, or -1 and the
    /// errno.
    static func accept(_ fd: Int32) -> (Int32, Int32) {
        let (client, code) = Syscalls.retryingOnInterrupt {
            #if canImport(Glibc)
                Glibc.accept(fd, nil, nil)
            #else
                Darwin.accept(fd, nil, nil)
            #endif
        }
        if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
        return (client, code)
    }

    /// Reads one waiting datagram without blocking: its length (or -1), its sender, and the errno.
    static func receiveFrom(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer)
        -> (count: Int, sender: SocketAddress?, errno: Int32)
    {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let (count, code) = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Syscalls.retryingOnInterrupt {
                    recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), address, &length)
                }
            }
        }
        guard count >= 0 else { return (count, nil, code) }
        return (count, SocketAddress(storage: storage, length: length), 0)
    }

    /// Sends one datagram to `destination` from an unconnected socket. Returns 0 or the errno.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) -> Int32 {
        let (_, code) = destination.withSockAddr { address, length in
            Syscalls.retryingOnInterrupt {
                #if canImport(Glibc)
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
                #else
                    sendto(fd, bytes.baseAddress, bytes.count, 0, address, length)
                #endif
            }
        }
        return code
    }

    /// Two connected, non-blocking, close-on-exec local datagram sockets: the descriptors, or the
    /// errno.
    static func datagramSocketPair() -> Result<(Int32, Int32), TransportError> {
        var pair: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let result = socketpair(AF_UNIX, Syscalls.datagramType | flags, 0, &pair)
        #else
            let result = socketpair(AF_UNIX, Syscalls.datagramType, 0, &pair)
            for fd in pair where result == 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        #endif
        guard result == 0 else { return .failure(.failed("socketpair", errno: Syscalls.errno)) }
        return .success((pair[0], pair[1]))
    }

    /// Sends every write of a connected TCP socket at once, in its own segment (`TCP_NODELAY`).
    /// Returns 0 or the errno.
    static func setNoDelay(_ fd: Int32) -> Int32 {
        var yes: Int32 = 1
        let result = setsockopt(
            fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return result < 0 ? Syscalls.errno : 0
    }

    /// Shuts a connected socket down in both directions, waking any thread blocked on it.
    static func shutdownBoth(_ fd: Int32) {
        #if canImport(Glibc)
            _ = shutdown(fd, Int32(SHUT_RDWR))
        #else
            _ = shutdown(fd, SHUT_RDWR)
        #endif
    }

    /// Waits until `fd` (ignored when negative) or `wakeFD` is readable, or `milliseconds` pass
    /// (−1: without limit). A wake-up wins over `fd`; a failed wait counts as a wake-up, so that a
    /// caller stops rather than spins, except `EINTR`, which counts as a timeout.
    static func pollReadable(_ fd: Int32, orWake wakeFD: Int32, milliseconds: Int32) -> WaitOutcome {
        var entries = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        let result = poll(&entries, 2, milliseconds)
        if result < 0 { return Syscalls.errno == EINTR ? .timedOut : .woken }
        if entries[1].revents != 0 { return .woken }
        if entries[0].revents != 0 { return .readable }
        return .timedOut
    }

    /// Waits for a thread started by `Syscalls.startThread` to end, and frees it.
    static func join(_ thread: pthread_t) {
        _ = pthread_join(thread, nil)
    }

    /// The calling thread.
    static func currentThread() -> pthread_t {
        pthread_self()
    }

    /// The CPU time (user plus system) that this process has used so far, all threads together
    /// (`getrusage(RUSAGE_SELF)`), to microsecond resolution: what tests measure (through
    /// `CPUTimeMeter` in LoopbackServers) to see a thread spinning after its caller returned.
    package static func processCPUTime() -> Duration {
        var usage = rusage()
        #if canImport(Glibc)
            let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
            let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return .zero }
        return Self.duration(usage.ru_utime) + Self.duration(usage.ru_stime)
    }

    /// A `timeval` as a duration.
    private static func duration(_ value: timeval) -> Duration {
        .seconds(Int64(value.tv_sec)) + .microseconds(Int64(value.tv_usec))
    }

    /// The natural logarithm (`log` from the C math library).
    package static func naturalLogarithm(_ value: Double) -> Double {
        log(value)
    }
}

extension FileDescriptor {
    /// Opens a socket (close-on-exec, and non-blocking when asked) and binds it to `address`,
    /// first allowing the reuse of an address in `TIME_WAIT` when asked (`SO_REUSEADDR`).
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `socket` or
    ///   `bind <address>`.
    static func socket(
        boundTo address: SocketAddress, type: Int32, nonBlocking: Bool = false, reuseAddress: Bool = false
    ) throws(TransportError) -> FileDescriptor {
        let socket = try FileDescriptor.socket(
            family: address.familyConstant, type: type, nonBlocking: nonBlocking)
        if reuseAddress { _ = ServerSyscalls.setReuseAddress(socket.rawValue) }
        let bound = ServerSyscalls.bind(socket.rawValue, to: address)
        guard bound == 0 else { throw .failed("bind \(address)", errno: bound) }
        return socket
    }

    /// The local address of a bound socket, with the port the kernel chose for port 0.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `getsockname`.
    func boundAddress() throws(TransportError) -> SocketAddress {
        guard let address = ServerSyscalls.localAddress(rawValue) else {
            throw .failed("getsockname", errno: Syscalls.errno)
        }
        return address
    }
}

/// What a wait on a descriptor and a ``WakeChannel`` ended with.
package enum WaitOutcome: Hashable, Sendable {
    /// The descriptor is readable (data, a connection, end of stream or an error is waiting).
    case readable
    /// The wake channel was woken (or the wait failed).
    case woken
    /// The time ran out (or a signal interrupted the wait).
    case timedOut
}
