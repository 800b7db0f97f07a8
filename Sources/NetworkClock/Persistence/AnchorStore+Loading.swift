import ClockCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import SNTP
import TimeValues

/// Reading an ``AnchorStore``'s file back: every check a file must pass before its anchor is used
/// (the StateFiles article).
extension AnchorStore {
    /// Reads the file back: the anchor (with source `TimeSource.restored`), its time-base instant
    /// and the frequency history, or the reason it cannot be used. Never traps, whatever the file
    /// holds.
    @available(*, noasync, message: "reads a file; from async code call it from a thread of your own")
    public func load() -> Result<RestoredAnchor, AnchorStoreError> {
        loadIncludingEarlierBoot().anchor
    }

    /// ``load()``, and from a valid file written in another boot of this machine (refused as
    /// ``AnchorStoreError/Code/differentBoot`` all the same), what it knew of the oscillator's
    /// frequency (``earlierBootFrequency(of:_:)``), from one read of the file.
    @available(*, noasync, message: "reads a file; from async code call it from a thread of your own")
    package func loadIncludingEarlierBoot() -> (
        anchor: Result<RestoredAnchor, AnchorStoreError>, earlierBoot: EarlierBootFrequency?
    ) {
        let file: AnchorFile
        switch read() {
        case .success(let read): file = read
        case .failure(let error): return (.failure(error), nil)
        }
        switch file.validated() {
        case .success(let values): return (restore(file, values), earlierBootFrequency(of: file, values))
        case .failure(let failure):
            return (.failure(error(.corrupt, "the anchor file is invalid: \(failure.reason)")), nil)
        }
    }

    /// The file's JSON, decoded, or why it cannot be (missing, unsafe, too large, cut short, not
    /// JSON, another format version).
    private func read() -> Result<AnchorFile, AnchorStoreError> {
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
        // The whole file first: a valid file of this format is parsed once. Only a file that does
        // not decode is parsed again, for its version alone, to say why.
        if let file = try? decoder.decode(AnchorFile.self, from: data), file.version == Self.formatVersion {
            return .success(file)
        }
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
        return .failure(self.error(.corrupt, "the anchor file lacks a field or has one of the wrong type"))
    }

    /// The anchor of a valid file, with what was saved beside it, if the file is of this boot.
    private func restore(_ file: AnchorFile, _ valid: AnchorFile.Contents) -> Result<
        RestoredAnchor, AnchorStoreError
    > {
        var values = valid
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
                frequencyHistory: values.points, carriedFrequency: values.carried, bootID: file.bootID,
                writtenAt: values.writtenAt, writtenAtMonotonic: values.writtenAtMonotonic))
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

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
