import ClockCore
import Foundation
import NetClockPlatform
import SNTP
import TimeBase

/// Persists an anchor across process restarts within one boot, in a small versioned JSON file.
///
/// An anchor from another boot is refused (``AnchorStoreError/Code/differentBoot``), and so is a
/// file that is not private to this user, without being followed or read
/// (``AnchorStoreError/isUnsafeFile``). Writes are atomic; loading never traps: every problem is a
/// typed ``AnchorStoreError``. The format and every check: <doc:StateFiles>.
public struct AnchorStore: Sendable {
    /// The file format version this library writes and reads.
    package static let formatVersion = 1
    /// Files larger than this are refused as corrupt without being parsed.
    package static let maximumFileSize = 256 * 1024
    /// Where the kernel publishes the current boot's identity on Linux.
    package static let bootIDPath = Syscalls.bootIDPath

    /// The anchor file's path.
    public let path: String
    private let bootID: @Sendable () -> String?
    private let monotonic: any MonotonicClock
    private let wall: any WallClock
    private let namespace: @Sendable () -> Result<TimeNamespaceOffsets, TimeNamespaceUnreadable>

    /// Creates a store for the anchor file at `path` (its directory is created on the first save),
    /// tagged with this boot's identity from `/proc/sys/kernel/random/boot_id`, its instants kept on
    /// the host's clocks (converted through `/proc/self/timens_offsets`).
    public init(path: String) {
        self.init(
            path: path, bootID: AnchorStore.systemBootID, monotonic: BootTimeClock(), wall: SystemWallClock(),
            namespace: Syscalls.timeNamespaceOffsets)
    }

    /// Creates a store for the file at `path` with injected boot identity, clocks and time
    /// namespace.
    ///
    /// - Parameters:
    ///   - path: The anchor file; its directory is created on the first save.
    ///   - bootID: Reads the current boot identity; tests inject a fixed one.
    ///   - monotonic: The monotonic clock anchors are measured against; must be the clock of the
    ///     ``AnchoredClock`` whose anchors are stored.
    ///   - wall: The wall clock, only to stamp the file's informational `written_at`.
    ///   - namespace: Reads the offsets of this process's time namespace (none by default, as for
    ///     simulated clocks).
    package init(
        path: String,
        bootID: @escaping @Sendable () -> String?,
        monotonic: some MonotonicClock,
        wall: some WallClock,
        namespace: @escaping @Sendable () -> Result<TimeNamespaceOffsets, TimeNamespaceUnreadable> = {
            .success(.zero)
        }
    ) {
        self.path = path
        self.bootID = bootID
        self.monotonic = monotonic
        self.wall = wall
        self.namespace = namespace
    }

    /// Creates a store at the default location, ``defaultPath(environment:)``.
    /// - Throws: ``AnchorStoreError/Code/noDefaultLocation`` when the environment gives none.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(AnchorStoreError)
    {
        guard let path = Self.defaultPath(environment: environment) else {
            throw AnchorStoreError(
                code: .noDefaultLocation,
                reason: "neither XDG_CACHE_HOME nor HOME is set to an absolute path",
                path: "")
        }
        self.init(path: path)
    }

    /// The default file: `$XDG_CACHE_HOME/netclock/anchor.json` when `XDG_CACHE_HOME` is an
    /// absolute path (the XDG specification says to ignore relative ones), else
    /// `$HOME/.cache/netclock/anchor.json`; `nil` when neither is usable.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return join(cache, "netclock/anchor.json")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return join(home, ".cache/netclock/anchor.json")
        }
        return nil
    }

    /// This store's reading of the boot identity (injected in tests).
    package var currentBootID: String? { bootID() }

    /// The file beside the anchor that keeps NTS keys and cookies (``NTSCookieFile``).
    package var ntsCookiePath: String { NTSCookieFile.path(besideAnchor: path) }

    /// The file beside the anchor that keeps the time floor (``TimeFloor``), which outlives reboots.
    package var floorPath: String { path + ".floor" }

    /// The lock file beside the anchor (``withExclusiveAccess(_:)``): empty, private, never removed.
    package var lockPath: String { path + ".lock" }

    /// How long ``withExclusiveAccess(_:)`` waits for another process to release the lock.
    package var lockTimeout: Duration = .seconds(10)

    /// The current boot identity from ``bootIDPath``, or `nil` where it cannot be read.
    package static func systemBootID() -> String? { Syscalls.bootID() }

    // MARK: Saving

    /// Writes `anchor`, its time-base instant and the frequency history atomically, replacing any
    /// previous file.
    ///
    /// Their instants are measured in the time namespace of `offsets` (this process's, read now,
    /// when nil) and written on the host's clocks: the offsets taken off, so that the file means
    /// the same in every namespace (the StateFiles article, "Time namespaces").
    /// - Throws: ``AnchorStoreError`` with code ``AnchorStoreError/Code/writeFailed`` when the
    ///   directory or file cannot be written, ``AnchorStoreError/Code/bootIDUnavailable`` when the
    ///   boot identity cannot be read, ``AnchorStoreError/Code/timeNamespaceUnavailable`` when the
    ///   namespace's offsets cannot be, ``AnchorStoreError/Code/invalidAnchor`` for an anchor
    ///   outside the supported range. An ``AnchoredClock`` keeps working regardless.
    @available(
        *, noasync, message: "writes and fsyncs a file; from async code use AnchoredClock.save(to:) async"
    )
    package func save(
        _ anchor: Anchor, timeBase: TimeBaseInstant? = nil, frequency: FrequencyTracker? = nil,
        offsets: TimeNamespaceOffsets? = nil
    ) throws(AnchorStoreError) {
        guard anchor.isWithinSupportedRange else {
            throw error(.invalidAnchor, "the anchor's values are outside the supported range")
        }
        guard let bootID = bootID() else {
            throw error(.bootIDUnavailable, "cannot read the boot identity from \(Self.bootIDPath)")
        }
        var measuredIn = TimeNamespaceOffsets.zero
        if let offsets { measuredIn = offsets } else { measuredIn = try currentOffsets() }
        let toHost = measuredIn.negated
        var hostAnchor = anchor
        hostAnchor.monotonic = anchor.monotonic + toHost.bootTime
        var hostFrequency = frequency
        hostFrequency?.shift(by: toHost)
        var file = AnchorFile(
            anchor: hostAnchor, timeBase: timeBase?.shifted(by: toHost), frequency: hostFrequency,
            bootID: bootID, writtenAt: wall.now(), writtenAtMonotonic: monotonic.now() + toHost.bootTime)
        file.timeNamespace = AnchorFile.NamespaceRecord(measuredIn)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(file)
        } catch {
            throw self.error(.writeFailed, "cannot encode the anchor: \(error)")
        }
        if let failure = FileSystem.writePrivateFile(Array(data) + [0x0A], toPath: path) {
            throw AnchorStoreError(failure, file: path, failed: .writeFailed)
        }
    }

    /// This process's time-namespace offsets, or the error that says they cannot be read.
    private func currentOffsets() throws(AnchorStoreError) -> TimeNamespaceOffsets {
        switch namespace() {
        case .success(let offsets): return offsets
        case .failure(let unreadable):
            throw error(
                .timeNamespaceUnavailable,
                "cannot read this process's time-namespace offsets, which the file's instants are "
                    + "converted with: \(unreadable.reason)")
        }
    }

    // MARK: Taking turns

    /// Runs `body` while this process holds the exclusive advisory lock on ``lockPath``: the one
    /// critical section, across processes, of reading the state beside it, merging this process's
    /// result in and writing it back, so that no process's measurement is lost to another's write.
    ///
    /// Taken only around that read-merge-write (never around a sync). The lock file is checked as
    /// the state files are (not a symbolic link, this user's, mode 0600) and created when missing.
    /// - Throws: ``AnchorStoreError/Code/lockTimeout`` when another process held the lock for
    ///   ``lockTimeout``; an unsafe-file code for a refused lock file
    ///   (``AnchorStoreError/isUnsafeFile``); ``AnchorStoreError/Code/writeFailed`` when it cannot
    ///   be created or locked; and whatever `body` throws.
    @available(*, noasync, message: "waits for a file lock; run it on the blocking pool")
    package func withExclusiveAccess<T>(_ body: () throws(AnchorStoreError) -> T) throws(AnchorStoreError)
        -> T
    {
        let lock: FileSystem.PrivateLock
        switch FileSystem.lockPrivateFile(atPath: lockPath, timeout: lockTimeout) {
        case .success(let taken): lock = taken
        case .failure(.refused(let refusal)): throw AnchorStoreError(refusal, file: lockPath)
        case .failure(.failed(let failure)):
            throw AnchorStoreError(code: .writeFailed, reason: failure.reason, path: lockPath)
        case .failure(let timedOut):
            throw AnchorStoreError(code: .lockTimeout, reason: timedOut.reason, path: lockPath)
        }
        let result = Result { () throws(AnchorStoreError) in try body() }
        lock.release()
        return try result.get()
    }

    // MARK: Checking

    /// Why the anchor file would be refused for what it is (see ``AnchorStoreError/isUnsafeFile``),
    /// or nil when it is absent or a private regular file. Looks at metadata only: reads nothing,
    /// so a command can check its state before any network traffic.
    package func unsafeFileError() -> AnchorStoreError? {
        Self.unsafeFileError(at: path)
    }

    /// ``unsafeFileError()`` for any state file, e.g. ``ntsCookiePath``.
    package static func unsafeFileError(at path: String) -> AnchorStoreError? {
        guard case .refused(let refusal) = FileSystem.inspectPrivateFile(atPath: path) else { return nil }
        return AnchorStoreError(refusal, file: path)
    }

    // MARK: Loading

    /// Reads the file back: the anchor (with source `TimeSource.restored`), its time-base instant
    /// and the frequency history, or the reason it cannot be used. Never traps, whatever the file
    /// holds.
    @available(*, noasync, message: "reads a file; from async code call it from a thread of your own")
    public func load() -> Result<RestoredAnchor, AnchorStoreError> {
        let bytes: [UInt8]
        switch FileSystem.readPrivateFile(atPath: path, limit: Self.maximumFileSize) {
        case .success(let content):
            bytes = content
        case .failure(.failed(let failure)) where failure.code == .noSuchFileOrDirectory:
            return .failure(error(.missing, "no anchor has been saved"))
        case .failure(.failed(let failure)):
            return .failure(
                error(failure.code == .fileTooLarge ? .corrupt : .unreadable, failure.reason))
        case .failure(.refused(let refusal)):
            return .failure(AnchorStoreError(refusal, file: path))
        }
        let trimmed = bytes.drop { Self.isWhitespace($0) }.reversed().drop { Self.isWhitespace($0) }
        guard !trimmed.isEmpty else { return .failure(error(.empty, "the anchor file is empty")) }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        let version: Int?
        do {
            version = try decoder.decode(AnchorFile.VersionProbe.self, from: data).version
        } catch {
            // Invalid JSON that ends inside a string or with objects or arrays still open was cut
            // short, e.g. by a full disk or a writer that does not rename.
            let code: AnchorStoreError.Code = Self.endsInsideJSON(bytes) ? .truncated : .corrupt
            return .failure(
                self.error(
                    code,
                    code == .truncated ? "the anchor file is truncated" : "the anchor file is not valid JSON")
            )
        }
        guard let version else { return .failure(error(.corrupt, "the anchor file has no version")) }
        guard version == Self.formatVersion else {
            return .failure(
                error(
                    .unsupportedVersion,
                    "the anchor file has format version \(version); this build reads \(Self.formatVersion)"))
        }
        let file: AnchorFile
        do {
            file = try decoder.decode(AnchorFile.self, from: data)
        } catch {
            return .failure(
                self.error(.corrupt, "the anchor file lacks a field or has one of the wrong type"))
        }
        return restore(file)
    }

    private func restore(_ file: AnchorFile) -> Result<RestoredAnchor, AnchorStoreError> {
        var values: AnchorFile.Contents
        switch file.validated() {
        case .success(let valid): values = valid
        case .failure(let failure):
            return .failure(error(.corrupt, "the anchor file is invalid: \(failure.reason)"))
        }
        guard let current = bootID() else {
            return .failure(
                error(.bootIDUnavailable, "cannot read the boot identity from \(Self.bootIDPath)"))
        }
        guard file.bootID == current else {
            return .failure(
                error(
                    .differentBoot,
                    "the anchor was saved before a reboot (boot \(file.bootID.prefix(64)), now \(current))"))
        }
        // The file's instants are on the host's clocks: onto this namespace's.
        let offsets: TimeNamespaceOffsets
        do {
            offsets = try currentOffsets()
        } catch {
            return .failure(error)
        }
        values.anchor.monotonic = values.anchor.monotonic + offsets.bootTime
        values.writtenAtMonotonic = values.writtenAtMonotonic + offsets.bootTime
        values.timeBase = values.timeBase?.shifted(by: offsets)
        values.points = values.points.map { point in
            var moved = point
            moved.base = point.base.shifted(by: offsets)
            return moved
        }
        let now = monotonic.now()
        guard values.writtenAtMonotonic <= now, values.anchor.monotonic <= now else {
            return .failure(error(.futureDated, "the anchor file refers to monotonic instants after now"))
        }
        guard values.anchor.monotonic <= values.writtenAtMonotonic else {
            return .failure(error(.futureDated, "the anchor is dated after the file was written"))
        }
        var anchor = values.anchor
        anchor.source = .restored
        return .success(
            RestoredAnchor(
                anchor: anchor, originalSource: values.anchor.source, timeBase: values.timeBase,
                frequencyHistory: values.points, bootID: file.bootID,
                writtenAt: values.writtenAt, writtenAtMonotonic: values.writtenAtMonotonic))
    }

    private func error(_ code: AnchorStoreError.Code, _ reason: String) -> AnchorStoreError {
        AnchorStoreError(code: code, reason: reason, path: path)
    }

    /// Whether `bytes` begin like JSON (`{` or `[`) and end with a string or a container still open.
    static func endsInsideJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { !isWhitespace($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return false }
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return inString || depth > 0
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func join(_ directory: String, _ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }
}
