// The one place where NetworkClock calls the C library. Everything platform-specific lives here so
// that a port to Darwin only has to fill in the `#elseif canImport(Darwin)` branches.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#else
    #error("NetworkClock's SNTP module supports Linux (Glibc) and Darwin only")
#endif

/// Thin, typed wrappers over the C library. Each reports a failure as an ``Errno`` through
/// ``valueOrErrno(retryOnInterrupt:_:)`` (Errno.swift), which retries on `EINTR` where that is
/// meaningful.
///
/// `@usableFromInline`: without it, the body of an `@inlinable package` member is not inlined into
/// another module (the compiler takes the member's `Syscalls.Type` self as not usable from inline
/// and keeps the call, silently), so the hot path's clock read stayed a call (Benchmarks.md).
@usableFromInline
package enum Syscalls {
    /// The kernel clocks NetworkClock reads.
    package enum ClockID {
        /// `CLOCK_BOOTTIME`: monotonic, counts suspend, cannot be set.
        case bootTime
        /// `CLOCK_MONOTONIC`: monotonic, stops during suspend.
        case monotonic
        /// `CLOCK_REALTIME`: the settable wall clock.
        case realTime
        /// `CLOCK_MONOTONIC_RAW`: the oscillator as the kernel counts it, never slewed by the time
        /// discipline (`adjtimex` moves `CLOCK_MONOTONIC`/`CLOCK_BOOTTIME`, never this); stops
        /// during suspend. On Darwin, `CLOCK_MONOTONIC`.
        case monotonicRaw
        /// `CLOCK_MONOTONIC_COARSE`: `CLOCK_MONOTONIC` as of the last timer tick, read without the
        /// hardware counter (a few ns). On Darwin, `CLOCK_MONOTONIC`.
        case monotonicCoarse
        /// `CLOCK_REALTIME_COARSE`: the wall clock as of the last timer tick. ``monotonicCoarse``
        /// minus it is the kernel's wall-to-monotonic offset, exactly (see
        /// ``Syscalls/suspendEpoch()``). On Darwin, `CLOCK_MONOTONIC`.
        case realTimeCoarse

        var raw: clockid_t {
            switch self {
            #if canImport(Glibc)
                case .bootTime: return CLOCK_BOOTTIME
                case .monotonicRaw: return CLOCK_MONOTONIC_RAW
                case .monotonicCoarse: return CLOCK_MONOTONIC_COARSE
                case .realTimeCoarse: return CLOCK_REALTIME_COARSE
            #else
                case .bootTime: return CLOCK_MONOTONIC
                case .monotonicRaw, .monotonicCoarse, .realTimeCoarse: return CLOCK_MONOTONIC
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

    /// Sleeps for `duration` on a relative timer, resuming after signals until it has elapsed.
    package static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        let (s, atto) = duration.components
        var request = timespec(tv_sec: Int(s), tv_nsec: Int(atto / 1_000_000_000))
        var remaining = timespec()
        while case .failure(.interrupted) = nothingOrErrno(
            retryOnInterrupt: false, { nanosleep(&request, &remaining) })
        {
            request = remaining
        }
    }

    // MARK: Sockets

    /// Opens a close-on-exec socket, non-blocking when asked: the descriptor, or the errno.
    static func socket(family: Int32, type: Int32, nonBlocking: Bool = false) -> Result<Int32, Errno> {
        #if canImport(Glibc)
            let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
            return valueOrErrno { Glibc.socket(family, type | flags, 0) }
        #else
            return valueOrErrno { Darwin.socket(family, type, 0) }.map { fd in
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
                return fd
            }
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

    /// Connects a (datagram) socket to `address`.
    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Result<
        Void, Errno
    > {
        nothingOrErrno {
            #if canImport(Glibc)
                Glibc.connect(fd, address, length)
            #else
                Darwin.connect(fd, address, length)
            #endif
        }
    }

    /// Sends on a connected socket (without `SIGPIPE`): the count sent, or the errno.
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        valueOrErrno {
            #if canImport(Glibc)
                Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            #else
                Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
            #endif
        }
    }

    /// Reads what is waiting on a socket without blocking: the count read (0 at the end of a
    /// stream), or the errno (``Errno/wouldBlock`` when nothing is waiting).
    package static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        valueOrErrno {
            #if canImport(Glibc)
                Glibc.recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            #else
                Darwin.recv(fd, buffer.baseAddress, buffer.count, MSG_DONTWAIT)
            #endif
        }
    }

    /// Waits until `fd` is readable or `milliseconds` pass: true when readable, false on timeout,
    /// or the errno. `EINTR` is reported as a timeout so the caller recomputes its deadline.
    static func pollReadable(_ fd: Int32, milliseconds: Int32) -> Result<Bool, Errno> {
        pollOne(fd, events: Int16(POLLIN), milliseconds: milliseconds)
    }

    /// Waits for `events` (or an error or hang-up) on one descriptor: true when ready, false on
    /// timeout or `EINTR`, or the errno.
    private static func pollOne(_ fd: Int32, events: Int16, milliseconds: Int32) -> Result<Bool, Errno> {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        switch valueOrErrno(retryOnInterrupt: false, { poll(&entry, 1, milliseconds) }) {
        case .success(let count):
            return .success(count > 0 && entry.revents & (events | Int16(POLLERR | POLLHUP)) != 0)
        case .failure(.interrupted):
            return .success(false)
        case .failure(let code):
            return .failure(code)
        }
    }

    /// Closes a descriptor. Never retried on `EINTR`: on Linux the descriptor is already released.
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = nothingOrErrno(retryOnInterrupt: false) { Glibc.close(fd) }
        #else
            _ = nothingOrErrno(retryOnInterrupt: false) { Darwin.close(fd) }
        #endif
    }
}

// MARK: - Non-blocking stream sockets

extension Syscalls {
    /// Prepares a freshly created stream socket for ``TCPConnection``: non-blocking, `TCP_NODELAY`,
    /// and (on Darwin, where `MSG_NOSIGNAL` does not exist) without `SIGPIPE`.
    static func prepareStreamSocket(_ fd: Int32) -> Result<Void, Errno> {
        valueOrErrno { fcntl(fd, F_GETFL) }
            .flatMap { flags in nothingOrErrno { fcntl(fd, F_SETFL, flags | O_NONBLOCK) } }
            .flatMap {
                // No Nagle delay: a TLS client's request follows its handshake's last flight at
                // once, and would otherwise wait for the server's delayed ACK (about 40 ms on
                // Linux) before leaving.
                var noDelay: Int32 = 1
                return nothingOrErrno {
                    setsockopt(
                        fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
                }
            }
            .flatMap {
                #if canImport(Darwin)
                    var yes: Int32 = 1
                    return nothingOrErrno {
                        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
                    }
                #else
                    return .success(())
                #endif
            }
    }

    /// Starts connecting a non-blocking socket: success when connected at once,
    /// ``Errno/nowInProgress`` when the connection goes on in the background (finish it with
    /// ``pollWritable(_:milliseconds:)`` and ``pendingSocketError(_:)``), or the errno of the
    /// failure. Not retried: after `EINTR` the kernel keeps connecting asynchronously, so `EINTR` is
    /// reported as `EINPROGRESS`.
    static func startConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t)
        -> Result<Void, Errno>
    {
        let result = nothingOrErrno(retryOnInterrupt: false) {
            #if canImport(Glibc)
                Glibc.connect(fd, address, length)
            #else
                Darwin.connect(fd, address, length)
            #endif
        }
        if case .failure(.interrupted) = result { return .failure(.nowInProgress) }
        return result
    }

    /// Waits until `fd` is writable (a pending connect has finished, successfully or not, or there is
    /// room to send) or `milliseconds` pass: true when ready, false on timeout, or the errno. `EINTR`
    /// is reported as a timeout so the caller recomputes its deadline.
    static func pollWritable(_ fd: Int32, milliseconds: Int32) -> Result<Bool, Errno> {
        pollOne(fd, events: Int16(POLLOUT), milliseconds: milliseconds)
    }

    /// Reads and clears the socket's pending error (`SO_ERROR`): nil when there is none, such as
    /// after a non-blocking connect that succeeded; the error of `getsockopt` itself when it fails.
    static func pendingSocketError(_ fd: Int32) -> Errno? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        switch nothingOrErrno({ getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) }) {
        case .success: return value == 0 ? nil : Errno(rawValue: value)
        case .failure(let code): return code
        }
    }
}
