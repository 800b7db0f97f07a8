/// One simultaneous reading of the wall clock and the monotonic clock, used to express monotonic
/// instants as wall-clock times.
///
/// Taking the mapping once and deriving T1 and T4 from the monotonic clock means a wall-clock step
/// during an exchange (or a burst) cannot corrupt a sample: every local timestamp in it is on the
/// same, steady time line.
package struct TimeMapping: Hashable, Sendable {
    /// The wall-clock reading.
    package var wall: UnixTime
    /// The monotonic reading taken at the same moment.
    package var monotonic: MonotonicInstant

    /// Creates a mapping from two readings taken together.
    package init(wall: UnixTime, monotonic: MonotonicInstant) {
        self.wall = wall
        self.monotonic = monotonic
    }

    /// Reads both clocks, monotonic on either side of the wall reading, and pairs the wall reading
    /// with the midpoint of the two monotonic readings.
    package init(wall: some WallClockSource, monotonic: some MonotonicClockSource) {
        let before = monotonic.now()
        let wallNow = wall.now()
        let after = monotonic.now()
        self.wall = wallNow
        self.monotonic = before + (after - before) / 2
    }

    /// The wall-clock time corresponding to a monotonic instant under this mapping.
    package func wallTime(at instant: MonotonicInstant) -> UnixTime {
        wall + (instant - monotonic)
    }
}
