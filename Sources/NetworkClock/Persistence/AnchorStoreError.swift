import NetClockPlatform
import SNTP
import TimeValues

/// Why an ``AnchorStore`` could not load or save an anchor: a stable ``code`` for programs and a
/// ``reason`` for people.
public struct AnchorStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier for a kind of failure; compare codes, not reasons.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The identifier, e.g. `different_boot`.
        public let rawValue: String

        /// Creates a code from its identifier.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The identifier.
        public var description: String { rawValue }

        /// There is no anchor file.
        public static let missing = Code(rawValue: "missing")
        /// The file exists but is empty (or only whitespace).
        public static let empty = Code(rawValue: "empty")
        /// The file ends in the middle of its JSON.
        public static let truncated = Code(rawValue: "truncated")
        /// The file is not valid JSON, lacks fields, or holds values out of range.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The file was written in a format version this library does not read.
        public static let unsupportedVersion = Code(rawValue: "unsupported_version")
        /// The file was written during another boot: the monotonic clock restarted since.
        public static let differentBoot = Code(rawValue: "different_boot")
        /// The current boot identity could not be read, so the file cannot be trusted.
        public static let bootIDUnavailable = Code(rawValue: "boot_id_unavailable")
        /// This process's time-namespace offsets (`/proc/self/timens_offsets`) could not be read,
        /// so the file's instants cannot be converted to its clocks (or from them).
        public static let timeNamespaceUnavailable = Code(rawValue: "time_namespace_unavailable")
        /// The file refers to monotonic instants later than now: it cannot have been written in
        /// this boot's past.
        public static let futureDated = Code(rawValue: "future_dated")
        /// The file exists but could not be read.
        public static let unreadable = Code(rawValue: "unreadable")
        /// Neither `XDG_CACHE_HOME` nor `HOME` gives a place for the default file.
        public static let noDefaultLocation = Code(rawValue: "no_default_location")
        /// The directory could not be created or the file could not be written.
        public static let writeFailed = Code(rawValue: "write_failed")
        /// There was no anchor to save, or its values are outside the supported range.
        public static let invalidAnchor = Code(rawValue: "invalid_anchor")
        /// Another process held the lock beside the state files (`<anchor>.lock`) for longer than
        /// a write waits; nothing was written.
        public static let lockTimeout = Code(rawValue: "lock_timeout")

        // State files that are not private to this user: refused before anything is read,
        // followed or replaced (``AnchorStoreError/isUnsafeFile``).

        /// The path is a symbolic link; state files are never followed.
        public static let symbolicLink = Code(rawValue: "symbolic_link")
        /// The path is a FIFO, a directory, a socket or a device, not a regular file.
        public static let notRegularFile = Code(rawValue: "not_regular_file")
        /// The file belongs to another user.
        public static let wrongOwner = Code(rawValue: "wrong_owner")
        /// The file can be read or written by its group or others (state files are 0600).
        public static let unsafePermissions = Code(rawValue: "unsafe_permissions")
        /// A directory above the file belongs to another user (not root), or its group or
        /// others may write it and it has no sticky bit, so they could replace the file.
        public static let unsafeDirectory = Code(rawValue: "unsafe_directory")
        /// The NTS cookies were kept under other trust roots (another CA file, or CA file
        /// contents that changed since).
        public static let differentTrustRoots = Code(rawValue: "different_trust_roots")
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, for people.
    public let reason: String
    /// The anchor file's path.
    public let path: String

    /// Creates an error.
    public init(code: Code, reason: String, path: String) {
        self.code = code
        self.reason = reason
        self.path = path
    }

    /// `path: reason`.
    public var description: String { "\(path): \(reason)" }

    /// Whether the file was refused for what it is (a symbolic link, not a regular file, another
    /// owner, open permissions, an unsafe directory) rather than for what it holds: nothing was
    /// read from it, and it is left as it is.
    public var isUnsafeFile: Bool {
        [.symbolicLink, .notRegularFile, .wrongOwner, .unsafePermissions, .unsafeDirectory].contains(code)
    }
}

extension AnchorStoreError {
    /// The error for a refused state file at `path` (the anchor or the NTS cookie file).
    package init(_ refusal: FileSystem.Refusal, file path: String) {
        let code: Code
        switch refusal.problem {
        case .symbolicLink: code = .symbolicLink
        case .notRegularFile: code = .notRegularFile
        case .ownedByAnotherUser: code = .wrongOwner
        case .accessibleByOthers: code = .unsafePermissions
        case .directoryOwnedByAnotherUser, .directoryWritableByOthers: code = .unsafeDirectory
        }
        self.init(code: code, reason: refusal.reason, path: path)
    }

    /// The error for a state file at `path` that could not be used: refused, or `failed` (the
    /// code for a call that failed, e.g. ``Code/unreadable`` or ``Code/writeFailed``).
    package init(_ error: FileSystem.PrivateFileError, file path: String, failed: Code) {
        switch error {
        case .refused(let refusal): self.init(refusal, file: path)
        case .failed(let failure): self.init(code: failed, reason: failure.reason, path: path)
        }
    }
}

/// The public code is one of the package's `ErrorCode`s (NetClockPlatform), like every other.
extension AnchorStoreError.Code: ErrorCode {}
