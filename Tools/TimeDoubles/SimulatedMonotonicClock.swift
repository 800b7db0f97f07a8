import TimeValues

/// The monotonic clock of a ``SimulatedTimeline``: a plain ``MonotonicClock``, so an
/// ``AnchoredClock`` uses it as its own time base (unlike ``SimulatedMachineClock``).
package struct SimulatedMonotonicClock: MonotonicClock {
    package let timeline: SimulatedTimeline
    package init(timeline: SimulatedTimeline) { self.timeline = timeline }
    package func now() -> MonotonicInstant { timeline.monotonicReading }
}
