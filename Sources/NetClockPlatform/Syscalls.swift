// The one place where NetworkClock calls the C library. Everything platform-specific lives here so
// that a port to Darwin only has to fill in the `#elseif canImport(Darwin)` branches.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#else
    #error("NetworkClock's SNTP module supports Linux (Glibc) and Darwin only")
#endif

/// Thin, typed wrappers over the C library, each retrying on `EINTR` where that is meaningful.
package enum Syscalls {
    /// The kernel clocks NetworkClock reads.
    package enum ClockID {
        /// `CLOCK_BOOTTIME`: monotonic, counts suspend, cannot be set.
        case bootTime
        /// `CLOCK_MONOTONIC`: monotonic, stops during suspend.
        case monotonic
        /// `CLOCK_REALTIME`: the settable wall clock.
        case realTime

        var raw: clockid_t {
            switch self {
            #if canImport(Glibc)
                case .bootTime: return CLOCK_BOOTTIME
            #else
                case .bootTime: return CLOCK_MONOTONIC
            #endif
            case .monotonic: return CLOCK_MONOTONIC
            case .realTime: return CLOCK_REALTIME
            }
        }
    }

    /// Reads a kernel clock. `clock_gettime` cannot fail for these clock IDs on supported kernels;
    /// if it ever did, the zero reading is returned rather than trapping.
    @inline(__always)
    package static func clockTime(_ id: ClockID) -> Duration {
        .nanoseconds(clockNanoseconds(id))
    }

    /// Reads a kernel clock as whole nanoseconds (wraps only beyond ±292 years): one multiply-add,
    /// the cheapest form for hot paths.
    @inline(__always)
    package static func clockNanoseconds(_ id: ClockID) -> Int64 {
        var ts = timespec()
        _ = clock_gettime(id.raw, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }

    /// The calling thread's `errno`.
    package static var errno: Int32 {
        #if canImport(Glibc)
            return Glibc.errno
        #else
            return Darwin.errno
        #endif
    }

    /// Runs `body` until it succeeds or fails with something other than `EINTR`.
    @inline(__always)
    package static func retryingOnInterrupt<T: BinaryInteger>(_ body: () -> T) -> (T, Int32) {
        while true {
            let result = body()
            if result >= 0 { return (result, 0) }
            let code = errno
            if code != EINTR { return (result, code) }
        }
    }

    /// Sleeps for `duration` on a relative timer, resuming after signals until it has elapsed.
    package static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        let (s, atto) = duration.components
        var request = timespec(tv_sec: Int(s), tv_nsec: Int(atto / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }

    // MARK: Threads

    /// Starts a thread running `body`: its handle, or the error code. A `detached` thread frees
    /// itself when `body` returns (its handle must not be joined); `stackSize`, when given, replaces
    /// the system's default stack size.
    package static func startThread(
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

    // MARK: Sockets

    /// Opens a close-on-exec socket, non-blocking when asked: the descriptor, or -1 and the errno.
    static func socket(family: Int32, type: Int32, nonBlocking: Bool = false) -> (Int32, Int32) {
        #if canImport(Glibc)
            let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
            return retryingOnInterrupt { Glibc.socket(family, type | flags, 0) }
        #else
            let (fd, code) = retryingOnInterrupt { Darwin.socket(family, type, 0) }
            guard fd >= 0 else { return (fd, code) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            return (fd, 0)
        #endif
    }

    /// `SOCK_DGRAM`.
    package static var datagramType: Int32 {
        #if canImport(Glibc)
            return Int32(SOCK_DGRAM.rawValue)
        #else
            return SOCK_DGRAM
        #endif
    }

    /// `SOCK_STREAM`.
    package static var streamType: Int32 {
        #if canImport(Glibc)
            return Int32(SOCK_STREAM.rawValue)
        #else
            return SOCK_STREAM
        #endif
    }

    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        let (result, code) = retryingOnInterrupt {
            #if canImport(Glibc)
                Glibc.connect(fd, address, length)
            #else
                Darwin.connect(fd, address, length)
            #endif
        }
        return result < 0 ? code : 0
    }

    /// Sends on a connected socket (without `SIGPIPE`): the count sent (or -1) and the errno.
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> (Int, Int32) {
        retryingOnInterrupt {
            #if canImport(Glibc)
                Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            #else
                Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
            #endif
        }
    }

    /// Reads what is waiting on a socket without blocking: the count read (or -1) and the errno.
    package static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> (Int, Int32) {
        retryingOnInterrupt {
            #if canImport(Glibc)
                Glibc.recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            #else
                Darwin.recv(fd, buffer.baseAddress, buffer.count, MSG_DONTWAIT)
            #endif
        }
    }

    /// Waits until `fd` is readable or `milliseconds` pass. Returns 1 when readable, 0 on timeout,
    /// and a negated errno on failure. `EINTR` is reported as 0 so the caller recomputes its deadline.
    static func pollReadable(_ fd: Int32, milliseconds: Int32) -> Int32 {
        pollOne(fd, events: Int16(POLLIN), milliseconds: milliseconds)
    }

    /// Waits for `events` (or an error or hang-up) on one descriptor: 1 when ready, 0 on timeout or
    /// `EINTR`, a negated errno on failure.
    private static func pollOne(_ fd: Int32, events: Int16, milliseconds: Int32) -> Int32 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let result = poll(&entry, 1, milliseconds)
        if result < 0 {
            let code = errno
            return code == EINTR ? 0 : -code
        }
        if result > 0 && entry.revents & (events | Int16(POLLERR | POLLHUP)) != 0 { return 1 }
        return 0
    }

    static func close(_ fd: Int32) {
        // Never retry close on EINTR: on Linux the descriptor is already released.
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }

    /// A readable description of an errno value.
    package static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    // MARK: Name resolution

    /// Resolves `host` to socket addresses with `getaddrinfo`, for datagram (UDP) or stream (TCP)
    /// sockets. Returns the addresses, or the `EAI_*` code and its description.
    static func resolve(host: String, port: UInt16, family: Int32, stream: Bool = false)
        -> Result<[SocketAddress], ResolutionFailure>
    {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = stream ? streamType : datagramType
        #if canImport(Glibc)
            hints.ai_protocol = Int32(stream ? IPPROTO_TCP : IPPROTO_UDP)
        #else
            hints.ai_protocol = stream ? IPPROTO_TCP : IPPROTO_UDP
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            let message = gai_strerror(code).map { String(cString: $0) } ?? "code \(code)"
            let systemCode = code == EAI_SYSTEM ? errno : 0
            return .failure(ResolutionFailure(code: code, systemErrno: systemCode, message: message))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let raw = entry.pointee.ai_addr,
                let address = SocketAddress(raw: raw, length: entry.pointee.ai_addrlen),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return .success(addresses)
    }

    struct ResolutionFailure: Error {
        var code: Int32
        var systemErrno: Int32
        var message: String
        /// Whether the failure is "no such name" rather than a temporary problem.
        var isNoSuchName: Bool {
            code == EAI_NONAME || code == EAI_NODATA_VALUE || code == EAI_ADDRFAMILY_VALUE
        }
    }

    static var addressFamilyUnspecified: Int32 { AF_UNSPEC }
    static var addressFamilyIPv4: Int32 { AF_INET }
    static var addressFamilyIPv6: Int32 { AF_INET6 }
    static var connectionRefused: Int32 { ECONNREFUSED }
    package static var wouldBlock: Int32 { EAGAIN }
}

#if canImport(Glibc)
    // GNU extensions that the Glibc module does not export.
    private let EAI_NODATA_VALUE: Int32 = -5
    private let EAI_ADDRFAMILY_VALUE: Int32 = -9
#else
    private let EAI_NODATA_VALUE: Int32 = EAI_NODATA
    private let EAI_ADDRFAMILY_VALUE: Int32 = EAI_ADDRFAMILY
#endif

// MARK: - Non-blocking stream sockets

extension Syscalls {
    /// Prepares a freshly created stream socket for ``TCPConnection``: non-blocking, `TCP_NODELAY`,
    /// and (on Darwin, where `MSG_NOSIGNAL` does not exist) without `SIGPIPE`. Returns 0 or the
    /// errno.
    static func prepareStreamSocket(_ fd: Int32) -> Int32 {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) >= 0 else { return errno }
        // No Nagle delay: a TLS client's request follows its handshake's last flight at once, and
        // would otherwise wait for the server's delayed ACK (about 40 ms on Linux) before leaving.
        var noDelay: Int32 = 1
        guard
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
                == 0
        else { return errno }
        #if canImport(Darwin)
            var yes: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { return errno }
        #endif
        return 0
    }

    /// Starts connecting a non-blocking socket. Returns 0 when connected at once, `EINPROGRESS` when
    /// the connection goes on in the background (finish it with ``pollWritable(_:milliseconds:)`` and
    /// ``pendingSocketError(_:)``), or the errno of the failure. Not retried: after `EINTR` the
    /// kernel keeps connecting asynchronously, so `EINTR` is reported as `EINPROGRESS`.
    static func startConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
            let result = Glibc.connect(fd, address, length)
        #else
            let result = Darwin.connect(fd, address, length)
        #endif
        guard result < 0 else { return 0 }
        let code = errno
        return code == EINTR ? EINPROGRESS : code
    }

    /// Waits until `fd` is writable (a pending connect has finished, successfully or not, or there is
    /// room to send) or `milliseconds` pass. Returns 1 when ready, 0 on timeout, and a negated errno
    /// on failure. `EINTR` is reported as 0 so the caller recomputes its deadline.
    static func pollWritable(_ fd: Int32, milliseconds: Int32) -> Int32 {
        pollOne(fd, events: Int16(POLLOUT), milliseconds: milliseconds)
    }

    /// Reads and clears the socket's pending error (`SO_ERROR`): 0 when there is none, such as after
    /// a non-blocking connect that succeeded.
    static func pendingSocketError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        let result = getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length)
        return result < 0 ? errno : value
    }

    static var connectInProgress: Int32 { EINPROGRESS }
    static var notConnected: Int32 { ENOTCONN }
}
