extension SyncReport {
    /// Which time a sync checked the servers' certificates (NTS-KE, `https://`) against
    /// (``SyncReport/certificateCheck``).
    ///
    /// A certificate is valid only between two dates, so checking it needs the time, which is what
    /// a machine whose clock is wrong lacks. The raw values are stable: they appear in the CLI's
    /// JSON as `certificate_time`.
    public enum CertificateCheck: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The machine's wall clock (``NetworkClock/CertificateTimePolicy/wallClock``, chrony's
        /// default): a wrong clock makes valid certificates fail.
        case wallClock = "wall_clock"
        /// The trusted clock: the anchor of an earlier authenticated sync of this boot.
        case trustedClock = "trusted_clock"
        /// Roughtime's signed time, which needs no certificate (asked first, when configured).
        case roughtime = "roughtime"
        /// A cold start without trusted time: chain, name, purpose and signatures verified without
        /// the time check, and the answer accepted only once every certificate it rests on is valid
        /// over the time it gave, the time is after the floor, and a majority of the configured
        /// servers agree.
        case bootstrap = "bootstrap"

        /// The raw value, e.g. `trusted_clock`.
        public var description: String { rawValue }

        /// For people: `the trusted clock`, `a bootstrap (no trusted time)`, ….
        public var phrase: String {
            switch self {
            case .wallClock: "the wall clock"
            case .trustedClock: "the trusted clock"
            case .roughtime: "Roughtime's signed time"
            case .bootstrap: "a bootstrap (no trusted time: validity checked against the time obtained)"
            }
        }
    }
}

extension NetworkClock {
    /// Which time certificates are checked against: the rule a sync follows, whose outcome it
    /// reports as ``SyncReport/CertificateCheck``.
    public enum CertificateTimePolicy: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The trusted clock when there is one, else Roughtime's time when Roughtime servers agree,
        /// else a checked bootstrap (``SyncReport/CertificateCheck/bootstrap``). The default.
        case automatic
        /// Always the machine's wall clock, as chrony does by default: strict, and no time at all
        /// when the clock is wrong.
        case wallClock = "wall-clock"

        /// `automatic` or `wall-clock`.
        public var description: String { rawValue }
    }
}
