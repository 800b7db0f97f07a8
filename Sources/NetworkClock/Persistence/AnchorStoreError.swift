import SNTP

/// Why an ``AnchorStore`` could not load or save an anchor: a stable ``code`` for programs and a
/// ``reason`` for people.
public struct AnchorStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier for a kind of failure; compare codes, not reasons.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The identifier, e.g. `different-boot`.
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
        public static let unsupportedVersion = Code(rawValue: "unsupported-version")
        /// The file was written during another boot: the monotonic clock restarted since.
        public static let differentBoot = Code(rawValue: "different-boot")
        /// The current boot identity could not be read, so the file cannot be trusted.
        public static let bootIDUnavailable = Code(rawValue: "boot-id-unavailable")
        /// The file refers to monotonic instants later than now: it cannot have been written in
        /// this boot's past.
        public static let futureDated = Code(rawValue: "future-dated")
        /// The file exists but could not be read.
        public static let unreadable = Code(rawValue: "unreadable")
        /// Neither `XDG_CACHE_HOME` nor `HOME` gives a place for the default file.
        public static let noDefaultLocation = Code(rawValue: "no-default-location")
        /// The directory could not be created or the file could not be written.
        public static let writeFailed = Code(rawValue: "write-failed")
        /// There was no anchor to save, or its values are outside the supported range.
        public static let invalidAnchor = Code(rawValue: "invalid-anchor")
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
}
