import TimeValues

extension NetworkClock {
    /// One reading of the system clock (`CLOCK_REALTIME`) paired with the monotonic instant it was
    /// taken at: what ``SystemClockOffset`` and ``SystemClockDecision`` compare trusted time with.
    ///
    /// The monotonic instant lets the clock's trusted interval be carried to the moment of the
    /// reading, so the offset is the trusted time minus the system clock at one and the same
    /// instant. The pairing is exact to within ``uncertainty``: the wall clock is read between two
    /// monotonic readings, and a thread preempted between them would pair it up to half their gap
    /// wrong.
    public struct SystemClockReading: Hashable, Sendable, CustomStringConvertible {
        /// What the system clock read.
        public var wall: UnixTime
        /// The monotonic instant of the reading, on the clock's time base (that of
        /// ``SyncReport/monotonic``).
        public var monotonic: MonotonicInstant
        /// How far from ``monotonic`` the wall clock may have been read: half the gap between the
        /// two monotonic readings around it.
        public var uncertainty: Duration

        /// A reading from its parts.
        public init(wall: UnixTime, monotonic: MonotonicInstant, uncertainty: Duration = .zero) {
            self.wall = wall
            self.monotonic = monotonic
            self.uncertainty = uncertainty
        }

        /// The wall time, ISO 8601 UTC with microseconds.
        public var description: String { ISO8601.format(wall, fractionDigits: 6) }
    }
}

extension NetworkClock {
    /// Reads the system clock between two readings of this clock's monotonic time base (the
    /// tightest of a few such brackets, as a sync maps its timestamps).
    public func readSystemClock() -> SystemClockReading {
        let mapping = TimeMapping(wall: wallClock, monotonic: monotonic)
        return SystemClockReading(
            wall: mapping.wall, monotonic: mapping.monotonic, uncertainty: mapping.uncertainty)
    }
}
