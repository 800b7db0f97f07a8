#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import ClockCore
import NetClockPlatform
import SNTP
import TimeValues

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
    let bootID: @Sendable () -> String?
    /// Reads the machine's identity (`/etc/machine-id`), to tell the oscillator of a file written
    /// in another boot from another machine's.
    let machineID: @Sendable () -> String?
    let monotonic: any MonotonicClock
    private let wall: any WallClock
    let namespace: @Sendable () -> Result<TimeNamespaceOffsets, TimeNamespaceUnreadable>

    /// Creates a store for the anchor file at `path` (its directory is created on the first save),
    /// tagged with this boot's identity from `/proc/sys/kernel/random/boot_id`, its instants kept on
    /// the host's clocks (converted through `/proc/self/timens_offsets`).
    public init(path: String) {
        self.init(
            path: path, bootID: AnchorStore.systemBootID, monotonic: BootTimeClock(), wall: SystemWallClock(),
            namespace: Syscalls.timeNamespaceOffsets, machineID: Syscalls.machineID)
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
    ///   - machineID: Reads the machine's identity; none by default, so that no frequency is
    ///     carried from a file of another boot (tests inject one).
    package init(
        path: String,
        bootID: @escaping @Sendable () -> String?,
        monotonic: some MonotonicClock,
        wall: some WallClock,
        namespace: @escaping @Sendable () -> Result<TimeNamespaceOffsets, TimeNamespaceUnreadable> = {
            .success(.zero)
        },
        machineID: @escaping @Sendable () -> String? = { nil }
    ) {
        self.path = path
        self.bootID = bootID
        self.machineID = machineID
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
        file.machine = currentMachineTag
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

    func error(_ code: AnchorStoreError.Code, _ reason: String) -> AnchorStoreError {
        AnchorStoreError(code: code, reason: reason, path: path)
    }

    private static func join(_ directory: String, _ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }
}
