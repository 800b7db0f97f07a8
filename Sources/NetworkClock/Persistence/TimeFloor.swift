#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import SNTP
import TimeValues

/// A lower bound on the true time that survives reboots: the earliest the last authenticated time
/// could have been, and the newest `notBefore` of a certificate that verified. True time never
/// goes back, so any source whose interval lies wholly before the floor is a falseticker, and a
/// certificate that expired before it is refused, whatever the local clock says.
///
/// Kept beside the anchor (`<anchor>.floor`, a private file like the anchor's, replaced
/// atomically) and, unlike the anchor, **not** bound to the boot: after a reboot the monotonic
/// clock restarts, but the true time is still at least what was once proven.
///
/// ```json
/// { "version": 1, "authenticated": 1796040000.25, "certificate_not_before": 1795900000 }
/// ```
package struct TimeFloor: Hashable, Sendable, CustomStringConvertible {
    /// The format version written and accepted.
    static let version = 1
    /// The largest file read.
    static let maximumFileSize = 4096

    /// The earliest the true time could have been at the last authenticated sync.
    package var authenticated: UnixTime?
    /// The newest `notBefore` of a certificate that verified in an accepted authenticated sync.
    package var certificateNotBefore: UnixTime?

    /// No floor.
    package init(authenticated: UnixTime? = nil, certificateNotBefore: UnixTime? = nil) {
        self.authenticated = authenticated
        self.certificateNotBefore = certificateNotBefore
    }

    /// The floor: the later of the two, nil when neither is known.
    package var value: UnixTime? {
        switch (authenticated, certificateNotBefore) {
        case (let a?, let b?): return max(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    /// This floor raised by an accepted authenticated result: the lower edge of its interval, and
    /// the newest `notBefore` among `certificates` (Unix seconds). Never lowered.
    package func raised(byAuthenticated earliest: UnixTime, certificateNotBefore newest: Int64?) -> TimeFloor
    {
        var floor = self
        floor.authenticated = max(authenticated ?? earliest, earliest)
        if let newest {
            let time = UnixTime(sinceEpoch: .seconds(newest))
            floor.certificateNotBefore = max(certificateNotBefore ?? time, time)
        }
        return floor
    }

    /// The later of this floor's and `other`'s values, field by field: what both prove.
    package func merged(with other: TimeFloor) -> TimeFloor {
        TimeFloor(
            authenticated: Self.later(authenticated, other.authenticated),
            certificateNotBefore: Self.later(certificateNotBefore, other.certificateNotBefore))
    }

    /// The later of two optional times.
    private static func later(_ a: UnixTime?, _ b: UnixTime?) -> UnixTime? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }

    /// `floor 2026-11-30T12:00:00Z` or `no floor`.
    package var description: String {
        value.map { "floor \(ISO8601.format($0, fractionDigits: 0))" } ?? "no floor"
    }

    // MARK: The file

    /// The floor kept at `path`; an empty floor when there is none.
    /// - Throws: ``AnchorStoreError`` when the file is refused (not private) or damaged.
    @available(*, noasync, message: "reads a file; run it on the blocking pool")
    package static func load(from path: String) throws(AnchorStoreError) -> TimeFloor {
        let bytes: [UInt8]
        switch FileSystem.readPrivateFile(atPath: path, limit: maximumFileSize) {
        case .success(let content): bytes = content
        case .failure(.failed(let failure)) where failure.code == .noSuchFileOrDirectory: return TimeFloor()
        case .failure(let error): throw AnchorStoreError(error, file: path, failed: .unreadable)
        }
        guard let file = try? JSONDecoder().decode(Contents.self, from: Data(bytes)), file.version == version
        else {
            throw AnchorStoreError(
                code: .corrupt, reason: "the time floor file is not a version-\(version) floor", path: path)
        }
        let floor = TimeFloor(
            authenticated: file.authenticated.flatMap(Self.time),
            certificateNotBefore: file.certificateNotBefore.flatMap(Self.time))
        return floor
    }

    /// Replaces the file at `path` with this floor.
    /// - Throws: ``AnchorStoreError`` when it cannot be written.
    @available(*, noasync, message: "writes and fsyncs a file; run it on the blocking pool")
    package func save(to path: String) throws(AnchorStoreError) {
        let contents = Contents(
            version: Self.version, authenticated: authenticated?.secondsDouble,
            certificateNotBefore: certificateNotBefore?.secondsDouble)
        guard let data = try? JSONEncoder().encode(contents) else {
            throw AnchorStoreError(code: .writeFailed, reason: "cannot encode the time floor", path: path)
        }
        if let failure = FileSystem.createDirectories(atPath: FileSystem.directoryName(of: path), mode: 0o700)
        {
            throw AnchorStoreError(code: .writeFailed, reason: failure.reason, path: path)
        }
        if let error = FileSystem.writePrivateFile(Array(data) + [0x0A], toPath: path) {
            throw AnchorStoreError(error, file: path, failed: .writeFailed)
        }
    }

    /// A time from seconds since 1970, when finite and within ±10,000 years.
    private static func time(_ seconds: Double) -> UnixTime? {
        guard seconds.isFinite, abs(seconds) < 3.2e11, let duration = Duration(secondsDouble: seconds) else {
            return nil
        }
        return UnixTime(sinceEpoch: duration)
    }

    /// The file's fields.
    private struct Contents: Codable {
        var version: Int
        var authenticated: Double?
        var certificateNotBefore: Double?

        enum CodingKeys: String, CodingKey {
            case version, authenticated
            case certificateNotBefore = "certificate_not_before"
        }
    }
}
