extension SyncReport {
    /// What became of one server (one address of one configured NTP server, one Roughtime server,
    /// one HTTP(S) URL) in a sync. An open set of names: `switch` over known ones with a `default`.
    public struct SourceStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The status name, as the CLI's JSON prints it.
        public package(set) var rawValue: String

        /// Creates a status from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The source whose sample became the result (or, when several are combined, the best of them).
        public static let selected = SourceStatus(rawValue: "selected")
        /// A source that agreed with the majority and was combined into the result.
        public static let survivor = SourceStatus(rawValue: "survivor")
        /// A source whose interval lies outside the majority's agreement: excluded.
        public static let falseticker = SourceStatus(rawValue: "falseticker")
        /// The source sent a Kiss-o'-Death.
        public static let kissOfDeath = SourceStatus(rawValue: "kod")
        /// No reply before the deadline.
        public static let timeout = SourceStatus(rawValue: "timeout")
        /// ICMP port unreachable.
        public static let refused = SourceStatus(rawValue: "refused")
        /// Replies arrived but every one was rejected.
        public static let rejected = SourceStatus(rawValue: "rejected")
        /// The name did not resolve or a socket call failed.
        public static let error = SourceStatus(rawValue: "error")
        /// The source's own samples contradict each other (their intervals do not intersect): the
        /// server stepped its clock or lied within the burst, or the local clock jumped. It does not
        /// vote; the reason names the two samples farthest apart.
        public static let inconsistent = SourceStatus(rawValue: "inconsistent")
        /// Not queried: dropped earlier after a DENY or RSTR Kiss-o'-Death, or backing off.
        public static let skipped = SourceStatus(rawValue: "skipped")
        /// Answered, but not used: NTS servers are configured and the NTS mode does not let an
        /// unauthenticated source decide the time (``NetworkClock/NTSMode``).
        public static let unauthenticated = SourceStatus(rawValue: "unauthenticated")
        /// Answered with unauthenticated time whose interval lies wholly outside the clock's held
        /// authenticated time: it takes no part, because unauthenticated evidence never overrules
        /// authenticated time (a forgery on the path, or a wrong server).
        public static let contradictsAuthenticated = SourceStatus(rawValue: "contradicts_authenticated")
        /// A Roughtime server whose validly signed time agrees with the other servers' majority.
        public static let agreed = SourceStatus(rawValue: "agreed")
        /// A Roughtime server whose signed time is valid, with no majority to judge it by.
        public static let unresolved = SourceStatus(rawValue: "unresolved")
        /// A Roughtime server that sent no reply (Roughtime's spelling of ``timeout``, kept as the
        /// CLI's JSON has always printed it).
        public static let timedOut = SourceStatus(rawValue: "timed_out")
        /// A Roughtime server that could not be asked: an invalid configuration, no address, a
        /// socket failure (Roughtime's spelling of ``error``).
        public static let failed = SourceStatus(rawValue: "failed")

        /// The status name.
        public var description: String { rawValue }
    }
}
