import TimeValues

extension TimeEstimate {
    /// What the clock knows about the next leap second, as the estimate was computed with it (see
    /// the LeapSeconds article).
    public struct Leap: Sendable, Hashable {
        /// What is known of the next leap second.
        public enum Kind: String, Sendable, Hashable {
            /// No leap second before ``TimeEstimate/Leap/instant`` (the first month end the clock
            /// knows nothing about).
            case none
            /// A second is inserted at the end of the UTC day ending at ``TimeEstimate/Leap/instant``.
            case insert
            /// A second is deleted at the end of the UTC day ending at ``TimeEstimate/Leap/instant``.
            case delete
            /// No source said, and no valid leap-second table: whether a second is inserted or
            /// deleted at ``TimeEstimate/Leap/instant`` (this month's end) is unknown, and the bound
            /// covers either from then on.
            case unknown
        }

        /// What is known.
        public var kind: Kind
        /// The UTC midnight it concerns (the end of the day with the leap); for ``Kind/none``, the
        /// first month end about which nothing is known.
        public var instant: UnixTime
        /// Whether the clock smears the leap (24 h linear, noon to noon UTC) instead of stepping
        /// as POSIX time does (``ClockPolicy/smearsLeapSeconds``).
        public var isSmeared: Bool
    }

    /// What the clock knows about the next leap second, and whether it smears it.
    public var leap: Leap { Leap(bits: metadata, instant: leapSeconds) }
}

extension TimeEstimate.Leap {
    /// The report packed in metadata bits 16–18 (kind, smear) with its instant in Unix seconds.
    init(bits: UInt64, instant: Int64) {
        kind =
            switch (bits >> 16) & 3 {
            case 1: .insert
            case 2: .delete
            case 3: .unknown
            default: .none
            }
        self.instant = UnixTime(seconds: instant)
        isSmeared = bits & (1 << 18) != 0
    }

    /// The report of a published schedule.
    package init(_ published: PublishedLeap) {
        self.init(bits: published.reportBits, instant: published.reportedInstant)
    }
}
