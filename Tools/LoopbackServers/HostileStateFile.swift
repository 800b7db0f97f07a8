import Foundation
import NetClockPlatform

/// What an attacker, or an accident, can leave where a state file (the anchor, the NTS cookies)
/// should be: the cases the state-file checks must refuse, quickly, without following or reading
/// them. Tests make each at a path and compare the refusal with ``code`` and ``reasonWords``.
package enum HostileStateFile: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A FIFO with no writer: a plain `open` for reading blocks for ever.
    case fifo
    /// A symbolic link to a valid, private file beside it (``linkTarget(of:)``).
    case symbolicLink
    /// A directory.
    case directory
    /// A regular file with valid contents, mode 0666.
    case worldWritable
    /// A regular file with valid contents, mode 0644.
    case worldReadable
    /// A regular file with valid contents, mode 0640.
    case groupReadable
    /// A regular file with valid contents, mode 0600, owned by `nobody` (uid 65534): needs root.
    case otherOwner

    /// The uid ``otherOwner`` files are given.
    package static let otherUID: UInt32 = 65_534

    /// Whether this process may make ``otherOwner`` (it needs `chown`, so root).
    package static var canMakeOtherOwner: Bool { geteuid() == 0 }

    /// The cases any user can make: all but ``otherOwner``.
    package static let withoutRoot = allCases.filter { $0 != .otherOwner }

    /// `fifo`, `symbolicLink`, ….
    package var description: String { rawValue }

    /// The ``AnchorStoreError`` code the refusal carries.
    package var code: String {
        switch self {
        case .fifo, .directory: return "not_regular_file"
        case .symbolicLink: return "symbolic_link"
        case .worldWritable, .worldReadable, .groupReadable: return "unsafe_permissions"
        case .otherOwner: return "wrong_owner"
        }
    }

    /// Words the refusal's reason must contain, after the path.
    package var reasonWords: String {
        switch self {
        case .fifo: return "is a FIFO"
        case .symbolicLink: return "is a symbolic link"
        case .directory: return "is a directory"
        case .worldWritable: return "is writable by others (mode 0666)"
        case .worldReadable: return "is readable by others (mode 0644)"
        case .groupReadable: return "is readable by its group (mode 0640)"
        case .otherOwner: return "is owned by uid \(Self.otherUID)"
        }
    }

    /// Whether a writer may replace it (only the permission bits are wrong, which the 0600
    /// replacement fixes); the others must be left as they are.
    package var isReplaceable: Bool {
        switch self {
        case .worldWritable, .worldReadable, .groupReadable: return true
        case .fifo, .symbolicLink, .directory, .otherOwner: return false
        }
    }

    /// The private file a ``symbolicLink`` at `path` points to.
    package static func linkTarget(of path: String) -> String { path + ".target" }

    /// Makes the case at `path` (which must not exist); regular files and the link's target hold
    /// `contents`.
    package func make(at path: String, contents: String) throws {
        let files = FileManager.default
        func regular(_ at: String, mode: Int) throws {
            guard files.createFile(atPath: at, contents: Data(contents.utf8)) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: at])
            }
            // Set after creation: the umask must not decide the mode under test.
            try files.setAttributes([.posixPermissions: mode], ofItemAtPath: at)
        }
        switch self {
        case .fifo:
            try Syscalls.nothingOrErrno { mkfifo(path, 0o600) }.get()
        case .symbolicLink:
            try regular(Self.linkTarget(of: path), mode: 0o600)
            try files.createSymbolicLink(atPath: path, withDestinationPath: Self.linkTarget(of: path))
        case .directory:
            try files.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .worldWritable: try regular(path, mode: 0o666)
        case .worldReadable: try regular(path, mode: 0o644)
        case .groupReadable: try regular(path, mode: 0o640)
        case .otherOwner:
            try regular(path, mode: 0o600)
            try files.setAttributes([.ownerAccountID: Int(Self.otherUID)], ofItemAtPath: path)
        }
    }

    /// Whether what is at `path` is still this case, untouched (for the link, its target too).
    package func isIntact(at path: String, contents: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        let text = { (at: String) in (try? String(contentsOfFile: at, encoding: .utf8)) == contents }
        switch self {
        case .fifo: return type == S_IFIFO
        case .symbolicLink: return type == S_IFLNK && text(Self.linkTarget(of: path))
        case .directory: return type == S_IFDIR
        case .worldWritable, .worldReadable, .groupReadable, .otherOwner: return type == S_IFREG && text(path)
        }
    }
}
