import NetClockPlatform

/// Why an SNTP operation failed (parsing a server name, decoding a packet, or querying a server
/// for a validated sample): a stable ``code`` for programs and a ``reason`` for people. Compare
/// codes, not reasons.
///
/// ```swift
/// do {
///     let sample = try SNTPClient().query(ServerName(host: "time.example.com"))
///     print(sample.offset, "±", sample.errorBound)
/// } catch where error.code == .kissOfDeath {
///     // The server asked us to stop or slow down: honour it.
/// }
/// ```
public struct SNTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for a kind of failure. New codes may be added; `switch` over known ones
    /// with a `default`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The identifier, e.g. `timeout`.
        public let rawValue: String

        /// Creates a code from its identifier.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The identifier.
        public var description: String { rawValue }

        /// No acceptable reply arrived before the timeout.
        public static let timeout = Code(rawValue: "timeout")
        /// ICMP port unreachable: nothing listens at the address.
        public static let refused = Code(rawValue: "refused")
        /// The server answered with a Kiss-o'-Death (RATE, DENY, RSTR, …); see ``kissCode``.
        public static let kissOfDeath = Code(rawValue: "kod")
        /// Replies arrived but every one was rejected (spoofed, unsynchronised, malformed, …).
        public static let rejected = Code(rawValue: "rejected")
        /// The server name could not be resolved to an address.
        public static let resolutionFailed = Code(rawValue: "resolution_failed")
        /// A socket call failed.
        public static let transport = Code(rawValue: "transport")
        /// The work was cancelled before it produced a sample.
        public static let cancelled = Code(rawValue: "cancelled")
        /// A server name is not `host`, `host:port`, `[v6addr]` or `[v6addr]:port`, or its port is
        /// not 1–65535.
        public static let invalidServerName = Code(rawValue: "invalid_server_name")
        /// Bytes too short to be an NTP packet (fewer than 48).
        public static let malformedPacket = Code(rawValue: "malformed_packet")
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, for people.
    public let reason: String
    /// The Kiss-o'-Death code, when ``code`` is ``Code/kissOfDeath``.
    public let kissCode: NTPPacket.KissCode?
    /// For ``Code/rejected``: the machine-readable reason of each distinct rejection, most
    /// frequent first (e.g. `origin_mismatch`, `unsynchronized`).
    public let rejections: [String]

    /// Creates an error.
    public init(
        code: Code, reason: String, kissCode: NTPPacket.KissCode? = nil, rejections: [String] = []
    ) {
        self.code = code
        self.reason = reason
        self.kissCode = kissCode
        self.rejections = rejections
    }

    /// The reason.
    public var description: String { reason }

    /// Errors are equal when their codes are: reasons are for people and may change.
    public static func == (lhs: SNTPError, rhs: SNTPError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension SNTPError {
    /// The error a burst's failure stands for.
    package init(_ failure: QueryFailure) {
        switch failure {
        case .timedOut: self.init(code: .timeout, reason: failure.description)
        case .refused: self.init(code: .refused, reason: failure.description)
        case .kissOfDeath(let code):
            self.init(code: .kissOfDeath, reason: failure.description, kissCode: code)
        case .allRejected(let reasons):
            // Distinct codes, most frequent reason first: two reasons may share a code.
            var codes: [String] = []
            for code in reasons.map(\.code) where !codes.contains(code) { codes.append(code) }
            self.init(code: .rejected, reason: failure.description, rejections: codes)
        case .transport(let error): self.init(error)
        }
    }

    /// The error a transport failure stands for.
    package init(_ error: TransportError) {
        switch error {
        case .resolutionFailed, .noAddresses:
            self.init(code: .resolutionFailed, reason: error.description)
        case .connectionRefused:
            self.init(code: .refused, reason: error.description)
        case .timedOut:
            self.init(code: .timeout, reason: error.description)
        case .systemCall:
            self.init(code: .transport, reason: error.description)
        }
    }
}

/// The public code is one of the package's `ErrorCode`s (NetClockPlatform), like every other.
extension SNTPError.Code: ErrorCode {}
