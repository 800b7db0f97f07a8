import TimeValues

/// A `Clock` for ``AnchoredClock/ticks(every:sleepingOn:)`` whose sleeps return at once after
/// advancing the simulated monotonic clock to the deadline plus a fixed lateness, and after running
/// a hook (e.g. the user stepping the wall clock while the countdown sleeps). Unlike ``ManualClock``
/// it needs no one to advance it: each sleep moves the ``SimulatedTimeline`` itself.
package struct SimulatedSleepClock: Clock {
    /// A reading of the timeline's monotonic clock.
    package struct Instant: InstantProtocol {
        package var reading: MonotonicInstant
        package init(reading: MonotonicInstant) { self.reading = reading }
        package func advanced(by duration: Duration) -> Instant { Instant(reading: reading + duration) }
        package func duration(to other: Instant) -> Duration { other.reading - reading }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.reading < rhs.reading }
    }

    package let timeline: SimulatedTimeline
    package var lateness: Duration = .zero
    package var onSleep: @Sendable () -> Void = {}

    package init(
        timeline: SimulatedTimeline, lateness: Duration = .zero, onSleep: @escaping @Sendable () -> Void = {}
    ) {
        self.timeline = timeline
        self.lateness = lateness
        self.onSleep = onSleep
    }

    package var now: Instant { Instant(reading: timeline.monotonicReading) }
    package var minimumResolution: Duration { .nanoseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        timeline.advanceMonotonic(to: deadline.reading + lateness)
        onSleep()
    }
}
