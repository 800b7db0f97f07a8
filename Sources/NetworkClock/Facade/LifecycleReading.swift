import NetClockPlatform
import TimeValues

/// What the lifecycle monitor reads of the kernel's clocks each time it wakes, and how two readings
/// tell a resume from a wall-clock step.
///
/// A resume adds the time suspended to `CLOCK_BOOTTIME` and not to `CLOCK_MONOTONIC`; a set of the
/// wall clock (by a user, a time daemon, `netclock set`, a leap second) moves `CLOCK_REALTIME`
/// against both and leaves their difference alone. The kernel's `CLOCK_REALTIME` timer with
/// `TFD_TIMER_CANCEL_ON_SET` fires on either, so the difference decides.
package struct LifecycleReading: Hashable, Sendable {
    /// `CLOCK_BOOTTIME − CLOCK_MONOTONIC`: the time spent suspended since boot.
    package var suspended: Duration
    /// `CLOCK_REALTIME − CLOCK_MONOTONIC`: where the wall clock stands against monotonic time.
    /// Slewing moves both alike; only a set, a leap second or a resume changes it.
    package var wallOffset: Duration

    /// A reading of the two differences.
    package init(suspended: Duration, wallOffset: Duration) {
        self.suspended = suspended
        self.wallOffset = wallOffset
    }

    /// A change of either difference no larger than this is how the clocks' reads pair up, not an
    /// event: the clock's own threshold for a suspend (100 µs, `HoldoverAging.suspendNoise`), so a
    /// resume the clock pays for in its bound is one the monitor reports.
    package static let noise = Duration.microseconds(100)

    /// The kernel's clocks now: the suspended time from a paired read of `CLOCK_BOOTTIME` and
    /// `CLOCK_MONOTONIC` (``Syscalls/timeBaseSample()``), the wall offset from its suspend epoch
    /// (the coarse clocks' exact difference, read twice to agree).
    package static func kernel() -> LifecycleReading {
        let sample = Syscalls.timeBaseSample()
        return LifecycleReading(
            suspended: .nanoseconds(sample.suspended), wallOffset: .nanoseconds(-sample.epoch))
    }

    /// The events between `previous` and this reading, given what woke the monitor: a resume when
    /// the suspended time grew; otherwise a wall-clock step when the timer says the clock was set
    /// (even by nothing: setting it to its own time is a set) or the wall offset moved; and a
    /// network change when routes changed. A resume also moves the wall offset, by the time
    /// suspended: that is the resume, not a step.
    package func events(
        since previous: LifecycleReading, wallClockSet: Bool, routesChanged: Bool
    ) -> [ClockEvent] {
        var events: [ClockEvent] = []
        let asleep = suspended - previous.suspended
        let step = wallOffset - previous.wallOffset
        if asleep > Self.noise {
            events.append(.resumed(suspendedFor: asleep))
        } else if wallClockSet || abs(step) > Self.noise {
            events.append(.wallClockStepped(by: step))
        }
        if routesChanged { events.append(.networkChanged) }
        return events
    }
}
