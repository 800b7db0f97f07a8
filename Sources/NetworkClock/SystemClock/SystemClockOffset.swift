import TimeValues

extension NetworkClock {
    /// How far the system clock is from the clock's trusted time, measured at one reading of it.
    ///
    /// The one comparison of true time with the system clock: `netclock set` decides from it,
    /// `check`, `now`, the metrics and a sync's top-level `offset` report it. Its trusted time is
    /// the clock's held interval (after any sync) carried to the instant of the reading, so a source
    /// the clock refused (unauthenticated time against an authenticated anchor, say) never shows in
    /// it.
    public struct SystemClockOffset: Hashable, Sendable, CustomStringConvertible {
        /// The clock's trusted time at the reading's monotonic instant.
        public let trustedTime: TimeEstimate
        /// The reading of the system clock it is compared with.
        public let reading: SystemClockReading

        /// Pairs trusted time at `reading`'s instant with `reading`.
        public init(trustedTime: TimeEstimate, reading: SystemClockReading) {
            self.trustedTime = trustedTime
            self.reading = reading
        }

        /// Trusted time minus the system clock (the NTP sign: positive when the system clock is
        /// behind).
        public var offset: Duration { trustedTime.time - reading.wall }

        /// The bound on ``offset``: the trusted time's bound plus the reading's own uncertainty.
        public var errorBound: Duration { trustedTime.errorBound + reading.uncertainty }

        /// Whether the trusted time is authenticated (NTS, Roughtime).
        public var isAuthenticated: Bool { trustedTime.isAuthenticated }

        /// `system clock -0.000012s ± 625.1µs from authenticated time`.
        public var description: String {
            "system clock \((.zero - offset).signedFormattedSeconds) ± \(errorBound.formattedSeconds) from "
                + (isAuthenticated ? "authenticated time" : "unauthenticated time")
        }
    }

    /// The system clock against the clock's trusted time now (see ``SystemClockOffset``); nil
    /// until the clock has an anchor.
    public func systemClockOffset() -> SystemClockOffset? {
        let reading = readSystemClock()
        guard let trusted = clock.estimate(at: reading.monotonic) else { return nil }
        return SystemClockOffset(trustedTime: trusted, reading: reading)
    }
}
