import TimeBase

extension NetworkClock {
    /// One reading of the system clock (`CLOCK_REALTIME`) paired with the monotonic instant it was
    /// taken at: what ``SystemClockDecision`` compares a sync result with.
    ///
    /// The monotonic instant lets the decision age a sync's interval to the moment of the reading, so
    /// the correction is the trusted time minus the system clock at one and the same instant.
    public struct SystemClockReading: Hashable, Sendable, CustomStringConvertible {
        /// What the system clock read.
        public var wall: UnixTime
        /// The monotonic instant of the reading, on the clock's time base (that of
        /// ``SyncReport/monotonic``).
        public var monotonic: MonotonicInstant

        /// A reading from its parts.
        public init(wall: UnixTime, monotonic: MonotonicInstant) {
            self.wall = wall
            self.monotonic = monotonic
        }

        /// The wall time, ISO 8601 UTC with microseconds.
        public var description: String { ISO8601.format(wall, fractionDigits: 6) }
    }
}

extension NetworkClock {
    /// Reads the system clock and this clock's monotonic time base together (the tightest of a few
    /// paired readings, as a sync maps its timestamps).
    public func readSystemClock() -> SystemClockReading {
        let mapping = TimeMapping(wall: wallClock, monotonic: monotonic)
        return SystemClockReading(wall: mapping.wall, monotonic: mapping.monotonic)
    }
}
