// The C library calls behind the server-side types (``UDPServerSocket``, ``TCPListener``,
// ``AcceptedTCPConnection``, ``WakeChannel``, ``JoinableThread``) that the loopback test servers
// use, and the process's CPU time that tests read. Kept beside Syscalls.swift, under the same platform chain, so a Darwin port stays in this
// folder.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// Lets a listening socket bind an address that is still in `TIME_WAIT` (`SO_REUSEADDR`).
    /// Returns 0 or the errno.
    static func setReuseAddress(_ fd: Int32) -> Int32 {
        var yes: Int32 = 1
        let result = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        return result < 0 ? errno : 0
    }

    /// Marks a bound stream socket as accepting connections. Returns 0 or the errno.
    static func listen(_ fd: Int32, backlog: Int32) -> Int32 {
        #if canImport(Glibc)
            let result = Glibc.listen(fd, backlog)
        #else
            let result = Darwin.listen(fd, backlog)
        #endif
        return result < 0 ? errno : 0
    }

    /// Accepts one pending connection as a close-on-exec descriptor: the descriptor, or -1 and the
    /// errno.
    static func accept(_ fd: Int32) -> (Int32, Int32) {
        let (client, code) = retryingOnInterrupt {
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
                retryingOnInterrupt {
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
            retryingOnInterrupt {
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
            let result = socketpair(AF_UNIX, datagramType | flags, 0, &pair)
        #else
            let result = socketpair(AF_UNIX, datagramType, 0, &pair)
            for fd in pair where result == 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        #endif
        guard result == 0 else { return .failure(.failed("socketpair", errno: errno)) }
        return .success((pair[0], pair[1]))
    }

    /// Sends every write of a connected TCP socket at once, in its own segment (`TCP_NODELAY`).
    /// Returns 0 or the errno.
    static func setNoDelay(_ fd: Int32) -> Int32 {
        var yes: Int32 = 1
        let result = setsockopt(
            fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return result < 0 ? errno : 0
    }

    /// The CPU time (user plus system) that this process has used so far, all threads together
    /// (`getrusage(RUSAGE_SELF)`), to microsecond resolution: what tests measure (through
    /// `CPUTimeMeter` in LoopbackServers) to see a thread spinning after its caller returned. Only
    /// test tools use it.
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
        if result < 0 { return errno == EINTR ? .timedOut : .woken }
        if entries[1].revents != 0 { return .woken }
        if entries[0].revents != 0 { return .readable }
        return .timedOut
    }

    /// Starts a thread running `body`: its handle, or the error code. A `detached` thread frees
    /// itself when `body` returns (its handle must not be joined); `stackSize`, when given, replaces
    /// the system's default stack size.
    static func startThread(
        detached: Bool = false, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
    ) -> Result<pthread_t, TransportError> {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else {
            return .failure(.failed("pthread_attr_init", errno: EAGAIN))
        }
        defer { pthread_attr_destroy(&attributes) }
        if detached { _ = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        if let stackSize { _ = pthread_attr_setstacksize(&attributes, stackSize) }
        let argument = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Glibc)
            var thread = pthread_t()
        #else
            var thread: pthread_t?
        #endif
        let result = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, argument)
        #if canImport(Glibc)
            let started: pthread_t? = result == 0 ? thread : nil
        #else
            let started = result == 0 ? thread : nil
        #endif
        guard let started else {
            Unmanaged<Box>.fromOpaque(argument).release()
            return .failure(.failed("pthread_create", errno: result == 0 ? EAGAIN : result))
        }
        return .success(started)
    }

    /// Waits for a thread started by ``startThread(_:)`` to end, and frees it.
    static func join(_ thread: pthread_t) {
        _ = pthread_join(thread, nil)
    }

    /// The calling thread.
    static func currentThread() -> pthread_t {
        pthread_self()
    }

    /// The natural logarithm (`log` from the C math library).
    package static func naturalLogarithm(_ value: Double) -> Double {
        log(value)
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
