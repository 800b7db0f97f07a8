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
    /// How far the wall reading can lie from ``monotonic``: half the gap between the two monotonic
    /// readings that bracketed it (zero for a mapping given as two readings taken together).
    package var uncertainty: Duration

    /// Creates a mapping from two readings taken together.
    package init(wall: UnixTime, monotonic: MonotonicInstant) {
        self.wall = wall
        self.monotonic = monotonic
        self.uncertainty = .zero
    }

    /// The most attempts at a tight reading.
    package static let attempts = 5
    /// A reading whose two monotonic readings are this close needs no further attempt.
    static let tightEnough: Duration = .microseconds(2)

    /// Reads both clocks, monotonic on either side of the wall reading, and pairs the wall reading
    /// with the midpoint of the two monotonic readings. A thread preempted between the readings
    /// would pair them up to half the gap wrong, so up to ``attempts`` readings are taken and the
    /// one with the smallest gap is kept (the first under ``tightEnough`` ends the search).
    package init(wall: some WallClock, monotonic: some MonotonicClock) {
        var best: (gap: Duration, wall: UnixTime, monotonic: MonotonicInstant)?
        for _ in 0..<Self.attempts {
            let before = monotonic.now()
            let wallNow = wall.now()
            let after = monotonic.now()
            let gap = after - before
            if best.map({ gap < $0.gap }) ?? true {
                best = (gap, wallNow, before + gap / 2)
            }
            if gap <= Self.tightEnough { break }
        }
        // `attempts` is positive, so `best` is set; the fallback only satisfies the compiler.
        let reading = best ?? (.zero, wall.now(), monotonic.now())
        self.wall = reading.wall
        self.monotonic = reading.monotonic
        // Rounded up: the pairing is exact to within half the gap, never better.
        self.uncertainty = Duration(attoseconds: (reading.gap.attoseconds + 1) / 2)
    }

    /// The wall-clock time corresponding to a monotonic instant under this mapping.
    package func wallTime(at instant: MonotonicInstant) -> UnixTime {
        wall + (instant - monotonic)
    }
}
