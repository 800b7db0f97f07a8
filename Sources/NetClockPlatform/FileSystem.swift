// File-system calls for the anchor store (in module NetworkClock), kept beside the other libc calls
// so that a Darwin port touches one folder. `package` access: visible inside this package only.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#else
#endif

/// Small, typed wrappers over POSIX file calls for ``AnchorStore``.
package enum FileSystem {
    /// A failed file operation: which call, on which path, and the `errno` it set.
    package struct Failure: Error, Sendable, Equatable {
        /// The operation that failed, e.g. `open`.
        package var operation: String
        /// The path it was applied to.
        package var path: String
        /// The `errno` value (``Errno/fileTooLarge`` for a file over a read's limit).
        package var code: Errno

        /// A sentence for people, e.g. `cannot open /x/y: Permission denied`.
        package var reason: String { "cannot \(operation) \(path): \(code)" }
    }

    /// Why the file at `path` (symbolic links followed, as for a CA bundle) cannot be handed to a
    /// library that opens it blocking: it is missing, or a FIFO, a device, a directory or a socket,
    /// which could make the open wait for ever. Nil for a regular file.
    package static func notARegularFile(atPath path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot inspect \(path): \(Errno(rawValue: errno))" }
        return info.st_mode & S_IFMT == S_IFREG ? nil : "\(path) is not a regular file"
    }

    /// Reads a whole file of at most `limit` bytes; larger files fail with `EFBIG`. For files
    /// the package does not own (`/proc`, CA bundles); the package's own state goes through
    /// ``readPrivateFile(atPath:limit:)``. Opened with `O_NONBLOCK`, so a FIFO never blocks.
    package static func readFile(atPath path: String, limit: Int) -> Result<[UInt8], Failure> {
        let fd: Int32
        switch Syscalls.valueOrErrno({ open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }) {
        case .success(let opened): fd = opened
        case .failure(let code): return .failure(Failure(operation: "open", path: path, code: code))
        }
        defer { Syscalls.close(fd) }
        return readAll(fd, path: path, limit: limit)
    }

    /// Reads `fd` to its end, failing with `EFBIG` past `limit` bytes.
    static func readAll(_ fd: Int32, path: String, limit: Int) -> Result<[UInt8], Failure> {
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count: Int
            switch chunk.withUnsafeMutableBytes({ buffer in
                Syscalls.valueOrErrno { read(fd, buffer.baseAddress, buffer.count) }
            }) {
            case .success(let read): count = read
            case .failure(let code): return .failure(Failure(operation: "read", path: path, code: code))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit {
                return .failure(Failure(operation: "read", path: path, code: .fileTooLarge))
            }
        }
    }

    /// Creates `path` and any missing parents with `mode`; existing directories are left as they are.
    package static func createDirectories(atPath path: String, mode: UInt32) -> Failure? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/" + component
            switch Syscalls.nothingOrErrno({ mkdir(prefix, mode_t(mode)) }) {
            case .success: continue
            case .failure(.fileExists): break
            case .failure(let code): return Failure(operation: "create directory", path: prefix, code: code)
            }
            var info = stat()
            if case .failure(let code) = Syscalls.nothingOrErrno({ stat(prefix, &info) }) {
                return Failure(operation: "inspect", path: prefix, code: code)
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                return Failure(operation: "create directory", path: prefix, code: .notDirectory)
            }
        }
        return nil
    }

    /// Replaces the file at `path` with `bytes` atomically: writes a uniquely named temporary file
    /// in the same directory (so the rename stays on one file system), sets `mode`, flushes it to
    /// disk, renames it over `path`, then flushes the directory. Readers see the old file or the new
    /// one, never a mixture, however many writers race. `rename` replaces a symbolic link at
    /// `path` rather than following it; ``writePrivateFile(_:toPath:)`` also refuses one.
    package static func writeAtomically(_ bytes: [UInt8], toPath path: String, mode: UInt32) -> Failure? {
        let directory = directoryName(of: path)
        let temporary = uniqueSibling(of: path, suffix: "tmp")
        let fd: Int32
        switch Syscalls.valueOrErrno({
            open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        }) {
        case .success(let created): fd = created
        case .failure(let code): return Failure(operation: "create", path: temporary, code: code)
        }
        var failure: Failure?
        if case .failure(let code) = Syscalls.nothingOrErrno({ fchmod(fd, mode_t(mode)) }) {
            failure = Failure(operation: "set permissions of", path: temporary, code: code)
        }
        var offset = 0
        while failure == nil && offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Syscalls.valueOrErrno {
                    write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                }
            }
            switch written {
            case .success(let count): offset += count
            case .failure(let code): failure = Failure(operation: "write", path: temporary, code: code)
            }
        }
        if failure == nil, case .failure(let code) = Syscalls.nothingOrErrno({ fsync(fd) }) {
            failure = Failure(operation: "flush", path: temporary, code: code)
        }
        // Never retried: on Linux the descriptor is released even when `close` fails.
        if case .failure(let code) = Syscalls.nothingOrErrno(retryOnInterrupt: false, { close(fd) }),
            failure == nil
        {
            failure = Failure(operation: "close", path: temporary, code: code)
        }
        if failure == nil, case .failure(let code) = Syscalls.nothingOrErrno({ rename(temporary, path) }) {
            failure = Failure(operation: "rename into place", path: path, code: code)
        }
        if let failure {
            _ = Syscalls.nothingOrErrno { unlink(temporary) }
            return failure
        }
        // Make the rename itself durable. The new file is already complete and in place, so a
        // failure here cannot tear it and is not reported.
        if case .success(let directoryFD) = Syscalls.valueOrErrno({
            open(directory, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        }) {
            _ = Syscalls.nothingOrErrno { fsync(directoryFD) }
            Syscalls.close(directoryFD)
        }
        return nil
    }

    /// The directory part of `path`: everything before the last `/`, `/` for a file in the root,
    /// `.` for a bare name.
    package static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
