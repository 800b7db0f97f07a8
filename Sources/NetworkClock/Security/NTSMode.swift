extension NetworkClock {
    /// Whether sources without authentication may decide the time when NTS servers are configured
    /// (chrony's `authselectmode`). Without NTS servers every source is unauthenticated and this has
    /// no effect.
    public enum NTSMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Only authenticated sources decide the time; plain NTP and HTTP sources are still queried
        /// and reported, but never used. The default.
        case require
        /// Authenticated sources decide the time whenever any of them gives one; unauthenticated
        /// sources are used only when none does.
        case prefer
        /// All sources are combined alike; the result counts as authenticated only when every
        /// source it rests on is.
        case mix

        /// `require`, `prefer` or `mix`, as the CLI's `--nts-mode` spells it.
        public var description: String { rawValue }
    }
}
