// Why a private state file, or a directory above it, is refused: the rules every state file of
// the package (the anchor, the NTS cookies) must meet before a byte of it is read.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#else
#endif

extension FileSystem {
    /// A state file, or a directory above it, that is not private to this user: nothing was read
    /// from it, followed or replaced.
    ///
    /// A private file is a regular file (never a symbolic link, FIFO, socket, device or
    /// directory), owned by the effective user, with no permission bits for its group or others
    /// (0600 as written; 0400 is accepted too, being stricter). Every directory above it is owned
    /// by the effective user or root and is not writable by its group or others unless its sticky
    /// bit is set (so `/tmp` is fine, a shared 0777 directory is not).
    package struct Refusal: Error, Sendable, Hashable {
        /// What is wrong.
        package enum Problem: Sendable, Hashable {
            /// The path is a symbolic link (state files are never followed).
            case symbolicLink
            /// The path is something other than a regular file: `a FIFO`, `a directory`, ….
            case notRegularFile(kind: String)
            /// The file belongs to another user.
            case ownedByAnotherUser(uid: UInt32)
            /// The file has permission bits for its group or others.
            case accessibleByOthers(mode: UInt32)
            /// A directory above the file is owned by someone other than this user or root.
            case directoryOwnedByAnotherUser(uid: UInt32)
            /// A directory above the file may be written by its group or others and has no
            /// sticky bit, so they could replace the file.
            case directoryWritableByOthers(mode: UInt32)
        }

        /// The file or directory refused.
        package var path: String
        /// What is wrong with it.
        package var problem: Problem

        /// Creates a refusal.
        package init(path: String, problem: Problem) {
            self.path = path
            self.problem = problem
        }

        /// A sentence naming the path and what is wrong, e.g. `/x/anchor.json is a FIFO, not a
        /// regular file`.
        package var reason: String {
            switch problem {
            case .symbolicLink:
                return "\(path) is a symbolic link (state files are never followed)"
            case .notRegularFile(let kind):
                return "\(path) is \(kind), not a regular file"
            case .ownedByAnotherUser(let uid):
                return "\(path) is owned by uid \(uid), not by this user (uid \(geteuid()))"
            case .accessibleByOthers(let mode):
                return
                    "\(path) is \(Self.exposure(of: mode)) (mode \(Self.octal(mode))); state files must be 0600"
            case .directoryOwnedByAnotherUser(let uid):
                return
                    "the directory \(path) is owned by uid \(uid), neither this user (uid \(geteuid())) nor root"
            case .directoryWritableByOthers(let mode):
                return "the directory \(path) is \(Self.exposure(of: mode)) (mode \(Self.octal(mode)))"
                    + " without the sticky bit"
            }
        }

        /// Who else may touch a file of `mode`, the most serious first.
        static func exposure(of mode: UInt32) -> String {
            if mode & 0o002 != 0 { return "writable by others" }
            if mode & 0o020 != 0 { return "writable by its group" }
            if mode & 0o004 != 0 { return "readable by others" }
            if mode & 0o040 != 0 { return "readable by its group" }
            return "accessible by others"
        }

        /// The permission bits as `ls` users write them: `0666`, `01777`.
        static func octal(_ mode: UInt32) -> String {
            let digits = String(mode & 0o7777, radix: 8)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// Why the file described by `info` (from `lstat` or `fstat`) may not be read as private
    /// state; nil when it may.
    static func refusal(ofFile info: stat, at path: String) -> Refusal? {
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK { return Refusal(path: path, problem: .symbolicLink) }
        guard type == S_IFREG else {
            return Refusal(path: path, problem: .notRegularFile(kind: kind(of: type)))
        }
        if info.st_uid != geteuid() {
            return Refusal(path: path, problem: .ownedByAnotherUser(uid: UInt32(info.st_uid)))
        }
        let mode = UInt32(info.st_mode) & 0o7777
        if mode & 0o077 != 0 { return Refusal(path: path, problem: .accessibleByOthers(mode: mode)) }
        return nil
    }

    /// Why the directory described by `info` (from `stat`) may not hold private state; nil when
    /// it may.
    static func refusal(ofDirectory info: stat, at path: String) -> Refusal? {
        let type = info.st_mode & S_IFMT
        guard type == S_IFDIR else {
            return Refusal(path: path, problem: .notRegularFile(kind: kind(of: type)))
        }
        if info.st_uid != geteuid() && info.st_uid != 0 {
            return Refusal(path: path, problem: .directoryOwnedByAnotherUser(uid: UInt32(info.st_uid)))
        }
        let mode = UInt32(info.st_mode) & 0o7777
        if mode & 0o022 != 0 && mode & UInt32(S_ISVTX) == 0 {
            return Refusal(path: path, problem: .directoryWritableByOthers(mode: mode))
        }
        return nil
    }

    /// `a FIFO`, `a directory`, … for a file type from `st_mode & S_IFMT`.
    static func kind(of type: mode_t) -> String {
        switch type {
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        case S_IFREG: return "a regular file"
        default: return "a special file"
        }
    }
}
