// Reading, taking and writing private state files (the anchor, the NTS cookies) so that a FIFO,
// a symbolic link, a directory, a device or a file another user can touch is refused at once,
// without blocking, following or reading it. The rules are in `FileSystem.Refusal`.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#else
#endif

extension FileSystem {
    /// Why a private state file could not be used: refused for what it is, or a failed call.
    package enum PrivateFileError: Error, Sendable, Equatable {
        /// The file or a directory above it is not private to this user; nothing was read.
        case refused(Refusal)
        /// A call failed (``Errno/noSuchFileOrDirectory`` for a missing file from
        /// ``readPrivateFile(atPath:limit:)``).
        case failed(Failure)

        /// A sentence for people.
        package var reason: String {
            switch self {
            case .refused(let refusal): return refusal.reason
            case .failed(let failure): return failure.reason
            }
        }
    }

    /// The flags every state file is opened with: never follow a final symbolic link, never wait
    /// for a FIFO's writer or a device, never become a controlling terminal, never leak to children.
    private static let privateOpenFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC

    /// Reads the private file at `path` (at most `limit` bytes; larger files fail with `EFBIG`).
    ///
    /// The file's directories are checked, then the path itself with `lstat`, so that nothing
    /// but a regular file is ever opened; it is then opened with `O_NOFOLLOW | O_NONBLOCK` and
    /// checked again with `fstat` (it may have been replaced in between). A missing file fails
    /// with ``Errno/noSuchFileOrDirectory``.
    package static func readPrivateFile(atPath path: String, limit: Int) -> Result<[UInt8], PrivateFileError>
    {
        if let error = checkPrivateDirectories(of: path) { return .failure(error) }
        return readChecked(path, reportedAs: path, limit: limit)
    }

    /// Why the private file at `path` would be refused; nil when it is absent or acceptable.
    /// Looks only at metadata (`lstat`, `stat`): opens and reads nothing.
    package static func inspectPrivateFile(atPath path: String) -> PrivateFileError? {
        if let error = checkPrivateDirectories(of: path) { return error }
        var info = stat()
        switch Syscalls.nothingOrErrno({ lstat(path, &info) }) {
        case .success: return refusal(ofFile: info, at: path).map(PrivateFileError.refused)
        case .failure(.noSuchFileOrDirectory): return nil
        case .failure(let code): return .failed(Failure(operation: "inspect", path: path, code: code))
        }
    }

    /// Takes the private file at `path`: removes it from its directory, then reads what it held;
    /// `nil` when there is none.
    ///
    /// The file is first checked in place (a refused file is left where it is), then renamed to
    /// a unique name and unlinked before it is read. `rename` is atomic, so of any number of
    /// processes taking the same file at once exactly one gets its bytes; the others find
    /// nothing.
    package static func takePrivateFile(atPath path: String, limit: Int) -> Result<[UInt8]?, PrivateFileError>
    {
        if let error = checkPrivateDirectories(of: path) { return .failure(error) }
        var info = stat()
        switch Syscalls.nothingOrErrno({ lstat(path, &info) }) {
        case .success: break
        case .failure(.noSuchFileOrDirectory): return .success(nil)
        case .failure(let code):
            return .failure(.failed(Failure(operation: "inspect", path: path, code: code)))
        }
        if let refusal = refusal(ofFile: info, at: path) { return .failure(.refused(refusal)) }
        let claimed = uniqueSibling(of: path, suffix: "taken")
        switch Syscalls.nothingOrErrno({ rename(path, claimed) }) {
        case .success: break
        // Another process took it first.
        case .failure(.noSuchFileOrDirectory): return .success(nil)
        case .failure(let code): return .failure(.failed(Failure(operation: "take", path: path, code: code)))
        }
        defer { _ = Syscalls.nothingOrErrno { unlink(claimed) } }
        switch readChecked(claimed, reportedAs: path, limit: limit) {
        case .success(let bytes): return .success(bytes)
        case .failure(.failed(let failure)) where failure.code == .noSuchFileOrDirectory: return .success(nil)
        case .failure(let error): return .failure(error)
        }
    }

    /// Replaces the private file at `path` with `bytes`, mode 0600, atomically (see
    /// ``writeAtomically(_:toPath:mode:)``), creating missing directories with mode 0700.
    ///
    /// Refuses unsafe directories, and refuses to replace anything at `path` that is not a
    /// regular file of this user (a symbolic link is replaced by nothing and never followed).
    package static func writePrivateFile(_ bytes: [UInt8], toPath path: String) -> PrivateFileError? {
        if let failure = createDirectories(atPath: directoryName(of: path), mode: 0o700) {
            return .failed(failure)
        }
        if let error = checkPrivateDirectories(of: path) { return error }
        var info = stat()
        switch Syscalls.nothingOrErrno({ lstat(path, &info) }) {
        case .success:
            // The mode does not matter: the file is about to be replaced by a 0600 one.
            if let refusal = refusal(ofFile: info, at: path), !refusal.isPermissionsOnly {
                return .refused(refusal)
            }
        case .failure(.noSuchFileOrDirectory): break
        case .failure(let code): return .failed(Failure(operation: "inspect", path: path, code: code))
        }
        return writeAtomically(bytes, toPath: path, mode: 0o600).map(PrivateFileError.failed)
    }

    /// Checks every directory above `path`, from its parent up to `/`, after resolving symbolic
    /// links in them (a linked `~/.cache` is fine when what it points to is private). A missing
    /// directory is no refusal: there is no file in it to read.
    package static func checkPrivateDirectories(of path: String) -> PrivateFileError? {
        let directory = directoryName(of: path)
        // `realpath` returns a pointer (NULL on failure) rather than a number.
        guard let resolved = realpath(directory, nil) else {
            let code = Errno.current
            return code == .noSuchFileOrDirectory
                ? nil : .failed(Failure(operation: "resolve", path: directory, code: code))
        }
        var current = String(cString: resolved)
        free(resolved)
        while true {
            var info = stat()
            if case .failure(let code) = Syscalls.nothingOrErrno({ stat(current, &info) }) {
                return .failed(Failure(operation: "inspect", path: current, code: code))
            }
            if let refusal = refusal(ofDirectory: info, at: current) { return .refused(refusal) }
            if current == "/" { return nil }
            current = directoryName(of: current)
        }
    }

    /// Checks, opens, checks again and reads; failures name `reported` (the caller's path).
    private static func readChecked(_ path: String, reportedAs reported: String, limit: Int)
        -> Result<[UInt8], PrivateFileError>
    {
        var before = stat()
        if case .failure(let code) = Syscalls.nothingOrErrno({ lstat(path, &before) }) {
            return .failure(.failed(Failure(operation: "open", path: reported, code: code)))
        }
        if let refusal = refusal(ofFile: before, at: reported) { return .failure(.refused(refusal)) }
        let fd: Int32
        switch Syscalls.valueOrErrno({ open(path, privateOpenFlags) }) {
        case .success(let opened): fd = opened
        // Replaced by a symbolic link since the lstat.
        case .failure(.tooManySymbolicLinkLevels):
            return .failure(.refused(Refusal(path: reported, problem: .symbolicLink)))
        case .failure(let code):
            return .failure(.failed(Failure(operation: "open", path: reported, code: code)))
        }
        defer { Syscalls.close(fd) }
        var after = stat()
        if case .failure(let code) = Syscalls.nothingOrErrno({ fstat(fd, &after) }) {
            return .failure(.failed(Failure(operation: "inspect", path: reported, code: code)))
        }
        if let refusal = refusal(ofFile: after, at: reported) { return .failure(.refused(refusal)) }
        if after.st_size > limit {
            return .failure(.failed(Failure(operation: "read", path: reported, code: .fileTooLarge)))
        }
        return readAll(fd, path: reported, limit: limit).mapError(PrivateFileError.failed)
    }

    /// A name beside `path` that no other process or call uses: `.<name>.<pid>.<random>.<suffix>`.
    static func uniqueSibling(of path: String, suffix: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let nonce = String(UInt64.random(in: .min ... .max), radix: 16)
        return "\(directoryName(of: path))/.\(name).\(getpid()).\(nonce).\(suffix)"
    }
}

extension FileSystem.Refusal {
    /// Whether the only problem is the file's permission bits (which a rewrite fixes).
    var isPermissionsOnly: Bool {
        if case .accessibleByOthers = problem { return true }
        return false
    }
}
