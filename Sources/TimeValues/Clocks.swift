/// A clock that only moves forward at a steady rate and that users cannot set.
///
/// NetworkClock anchors true time to this clock. Production code uses `BootTimeClock` (in the
/// platform layer, which reads it); tests inject simulated clocks, for example one that runs fast
/// by a chosen number of parts per million.
package protocol MonotonicClock: Sendable {
    /// The current reading.
    func now() -> MonotonicInstant
}

/// The system's wall clock: what the machine believes the time is, which a user may change at will.
package protocol WallClock: Sendable {
    /// The current reading.
    func now() -> UnixTime
}
