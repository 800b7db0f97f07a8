#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// Waits until one of `fds` is readable (or reports an error or hang-up) or `milliseconds`
    /// pass: which of them are ready, in order (none on a timeout or `EINTR`), or the errno.
    static func pollReadable(_ fds: [Int32], milliseconds: Int32) -> Result<[Bool], Errno> {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = Int16(POLLIN | POLLERR | POLLHUP)
        let count = entries.count
        switch entries.withUnsafeMutableBufferPointer({ buffer in
            valueOrErrno(retryOnInterrupt: false) { poll(buffer.baseAddress, nfds_t(count), milliseconds) }
        }) {
        case .success: return .success(entries.map { $0.revents & ready != 0 })
        case .failure(.interrupted): return .success(Array(repeating: false, count: count))
        case .failure(let code): return .failure(code)
        }
    }

    /// A pipe whose two ends are non-blocking and close-on-exec: (read end, write end).
    static func nonBlockingPipe() -> Result<(Int32, Int32), Errno> {
        var ends: [Int32] = [-1, -1]
        return nothingOrErrno { ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress) } }.map {
            for fd in ends {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
            return (ends[0], ends[1])
        }
    }

    /// Writes one byte to a non-blocking descriptor; a full pipe already signals, so `EAGAIN` is
    /// not a failure.
    static func writeByte(_ fd: Int32) {
        var byte: UInt8 = 1
        #if canImport(Glibc)
            _ = valueOrErrno { Glibc.write(fd, &byte, 1) }
        #else
            _ = valueOrErrno { Darwin.write(fd, &byte, 1) }
        #endif
    }

    /// Reads and drops everything waiting on a non-blocking descriptor.
    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                #if canImport(Glibc)
                    valueOrErrno { Glibc.read(fd, bytes.baseAddress, bytes.count) }
                #else
                    valueOrErrno { Darwin.read(fd, bytes.baseAddress, bytes.count) }
                #endif
            }
            guard case .success(let read) = count, read > 0 else { return }
        }
    }
}
