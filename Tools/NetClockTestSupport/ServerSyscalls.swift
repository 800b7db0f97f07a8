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

/// Thin, typed wrappers over the server side of the C library, each reporting a failure as an
/// ``Errno`` through `Syscalls.valueOrErrno(retryOnInterrupt:_:)`, as the client's do.
package enum ServerSyscalls {
    /// Lets a listening socket bind an address that is still in `TIME_WAIT` (`SO_REUSEADDR`).
    static func setReuseAddress(_ fd: Int32) -> Result<Void, Errno> {
        var yes: Int32 = 1
        return Syscalls.nothingOrErrno {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Binds a socket to `address`.
    static func bind(_ fd: Int32, to address: SocketAddress) -> Result<Void, Errno> {
        address.withSockAddr { address, length in
            Syscalls.nothingOrErrno {
                #if canImport(Glibc)
                    Glibc.bind(fd, address, length)
                #else
                    Darwin.bind(fd, address, length)
                #endif
            }
        }
    }

    /// The local address of a bound socket (`getsockname`; nil for a family other than IPv4 and
    /// IPv6), or the errno.
    static func localAddress(_ fd: Int32) -> Result<SocketAddress?, Errno> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Syscalls.nothingOrErrno { getsockname(fd, address, &length) }
            }
        }
        return result.map { SocketAddress(storage: storage, length: length) }
    }

    /// Marks a bound stream socket as accepting connections.
    static func listen(_ fd: Int32, backlog: Int32) -> Result<Void, Errno> {
        Syscalls.nothingOrErrno {
            #if canImport(Glibc)
                Glibc.listen(fd, backlog)
            #else
                Darwin.listen(fd, backlog)
            #endif
        }
    }

    /// Accepts one pending connection as a close-on-exec descriptor: the descriptor, or the errno.
    static func accept(_ fd: Int32) -> Result<Int32, Errno> {
        Syscalls.valueOrErrno {
            #if canImport(Glibc)
                Glibc.accept(fd, nil, nil)
            #else
                Darwin.accept(fd, nil, nil)
            #endif
        }.map { client in
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            return client
        }
    }

    /// Reads one waiting datagram without blocking: its length and its sender (nil for a family
    /// other than IPv4 and IPv6), or the errno (``Errno/wouldBlock`` when none is waiting).
    static func receiveFrom(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer)
        -> Result<(count: Int, sender: SocketAddress?), Errno>
    {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let received = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Syscalls.valueOrErrno {
                    recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), address, &length)
                }
            }
        }
        return received.map { count in (count, SocketAddress(storage: storage, length: length)) }
    }

    /// Sends one datagram to `destination` from an unconnected socket.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, to destination: SocketAddress)
        -> Result<Void, Errno>
    {
        destination.withSockAddr { address, length in
            Syscalls.nothingOrErrno {
                #if canImport(Glibc)
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
                #else
                    sendto(fd, bytes.baseAddress, bytes.count, 0, address, length)
                #endif
            }
        }
    }

    /// Two connected, non-blocking, close-on-exec local datagram sockets: the descriptors, or the
    /// errno.
    static func datagramSocketPair() -> Result<(Int32, Int32), Errno> {
        var pair: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let result = Syscalls.nothingOrErrno {
                socketpair(AF_UNIX, Syscalls.datagramType | flags, 0, &pair)
            }
        #else
            let result = Syscalls.nothingOrErrno { socketpair(AF_UNIX, Syscalls.datagramType, 0, &pair) }
            if case .success = result {
                for fd in pair {
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                }
            }
        #endif
        return result.map { (pair[0], pair[1]) }
    }

    /// Sends every write of a connected TCP socket at once, in its own segment (`TCP_NODELAY`).
    static func setNoDelay(_ fd: Int32) -> Result<Void, Errno> {
        var yes: Int32 = 1
        return Syscalls.nothingOrErrno {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Shuts a connected socket down in both directions, waking any thread blocked on it.
    static func shutdownBoth(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Syscalls.nothingOrErrno { shutdown(fd, Int32(SHUT_RDWR)) }
        #else
            _ = Syscalls.nothingOrErrno { shutdown(fd, SHUT_RDWR) }
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
        switch Syscalls.valueOrErrno(retryOnInterrupt: false, { poll(&entries, 2, milliseconds) }) {
        case .success: break
        case .failure(.interrupted): return .timedOut
        case .failure: return .woken
        }
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
        guard case .success = Syscalls.nothingOrErrno({ getrusage(who, &usage) }) else { return .zero }
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
        if case .failure(let code) = ServerSyscalls.bind(socket.rawValue, to: address) {
            throw .failed("bind \(address)", errno: code)
        }
        return socket
    }

    /// The local address of a bound socket, with the port the kernel chose for port 0.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `getsockname`.
    func boundAddress() throws(TransportError) -> SocketAddress {
        switch ServerSyscalls.localAddress(rawValue) {
        case .success(let address?): return address
        case .success(nil): throw .failed("getsockname", errno: .addressFamilyNotSupported)
        case .failure(let code): throw .failed("getsockname", errno: code)
        }
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
