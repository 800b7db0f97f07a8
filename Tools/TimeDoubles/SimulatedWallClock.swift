import TimeValues

/// The wall clock of a ``SimulatedTimeline``, including the user's steps.
package struct SimulatedWallClock: WallClock {
    package let timeline: SimulatedTimeline
    package init(timeline: SimulatedTimeline) { self.timeline = timeline }
    package func now() -> UnixTime { timeline.wallReading }
}
